// A call's own Authorization over Streamable HTTP. The MCP SDK will not set Authorization from a
// request's options (it keeps the header for its own OAuth), so a call made on behalf of its caller
// (token exchange) names its token in a header of the gateway's own, and the fetch under the
// transport moves it into Authorization, in place of the server's configured one. The private
// header never leaves the process.
import type { FetchLike } from '@modelcontextprotocol/client'

/** The header a call's options carry its Authorization in, up to the fetch. */
export const CALL_AUTHORIZATION_HEADER = 'x-tool-gateway-call-authorization'

export function withCallAuthorization (inner: FetchLike): FetchLike {
  return async (url, init) => {
    const headers = new Headers(init?.headers)
    const authorization = headers.get(CALL_AUTHORIZATION_HEADER)
    if (authorization === null) return await inner(url, init)
    headers.delete(CALL_AUTHORIZATION_HEADER)
    headers.set('authorization', authorization)
    return await inner(url, { ...init, headers })
  }
}
