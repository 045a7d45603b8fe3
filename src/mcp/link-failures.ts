// Which failures of the MCP client SDK or of fetch mean that the connection to a server is gone
// (as opposed to the server answering with an error), a timeout, and the message that says so.
import { SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client'
import { isRecord, messageOf } from '../objects.ts'

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

/** A failure's message; fetch's bare "fetch failed" gets its network cause, which says what failed (ECONNREFUSED and where). */
export function failureMessage (err: unknown): string {
  const base = messageOf(err)
  return err instanceof TypeError && hasErrorCode(err.cause) ? `${base} (${messageOf(err.cause)})` : base
}

export function isTimeout (err: unknown): boolean {
  return err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout
}
