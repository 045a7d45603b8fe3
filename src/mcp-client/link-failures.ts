// Which failures of the MCP client SDK or of fetch mean that the connection to a server is gone
// (as opposed to the server answering with an error), a timeout, and the message that says so.
import { SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client'
import { isRecord, messageOf } from '../shared/objects.ts'

const LOST_SDK_CODES: ReadonlySet<string> = new Set([SdkErrorCode.ConnectionClosed, SdkErrorCode.NotConnected, SdkErrorCode.SendFailed])

/** The connection itself failed (as opposed to the server answering with an error). */
export function isConnectionLoss (err: unknown): boolean {
  if (err instanceof SdkHttpError) return err.status === 404 || err.status >= 500
  if (err instanceof SdkError) return LOST_SDK_CODES.has(err.code)
  // fetch rejects with a bare TypeError ("fetch failed", or "terminated" mid-body) whose cause is
  // the network error, which carries a code: a system one (ECONNREFUSED, ECONNRESET, ENOTFOUND) or
  // undici's (UND_ERR_SOCKET). Refusals that are not network failures ("bad port") carry none.
  return err instanceof TypeError && hasErrorCode(err.cause)
}

function hasErrorCode (value: unknown): boolean {
  return value instanceof Error && isRecord(value) && typeof value.code === 'string'
}

/** Characters of a refusing server's body added to a message that lacks it. */
const SERVER_TEXT_CHARS = 500

/**
 * A failure's message; fetch's bare "fetch failed" gets its network cause, which says what failed
 * (ECONNREFUSED and where). An HTTP refusal whose message lacks the server's body (the SDK's
 * server/discover probe says only "the server requires authorization (HTTP 401)") gets it, cut
 * short: that is where a server says why.
 */
export function failureMessage (err: unknown): string {
  const base = messageOf(err)
  if (err instanceof TypeError && hasErrorCode(err.cause)) return `${base} (${messageOf(err.cause)})`
  if (err instanceof SdkHttpError && isRecord(err.data) && typeof err.data.text === 'string') {
    const text = err.data.text.trim().slice(0, SERVER_TEXT_CHARS)
    if (text !== '' && !base.includes(text)) return `${base}: ${text}`
  }
  return base
}

export function isTimeout (err: unknown): boolean {
  return err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout
}
