// Which typed error a failed MCP request becomes, and what the failure says about the link: a
// timeout may mean a hung server (worth a ping), a broken transport means the link is gone. The
// messages reach the model, so they name the server and the request.
import { ProtocolError } from '@modelcontextprotocol/client'
import { CancelledError, McpAnswerTooLargeError, McpConnectionLostError, McpInvalidAnswerError, McpRequestFailedError, McpTimeoutError } from '../shared/errors.ts'
import { messageOf } from '../shared/objects.ts'
import { REFUSAL_MARK, type Refusal } from './answer-binding.ts'
import { failureMessage, isConnectionLoss, isTimeout } from './link-failures.ts'

export interface FailedRequest {
  server: string
  /** The request as messages name it: `tools/call "echo"`. */
  label: string
  timeoutMs: number
  /** The caller's signal, if it gave one. */
  signal?: AbortSignal
}

export interface RequestFailure {
  error: Error
  /** The server may be hung: check it answers at all. */
  suspect?: boolean
  /** The link is gone, and why (for operators). */
  lost?: string
}

/** A deadline aborts with a DOMException named 'TimeoutError' (the dispatcher's, AbortSignal.timeout()); the name is its kind. */
function isDeadline (reason: unknown): boolean {
  return reason instanceof Error && reason.name === 'TimeoutError'
}

export function requestFailure ({ server, label, timeoutMs, signal }: FailedRequest, err: unknown): RequestFailure {
  if (signal?.aborted) {
    // The SDK has told the server (notifications/cancelled). A deadline hit may mean a hung server.
    const reason: unknown = signal.reason
    const message = `MCP server "${server}" did not finish ${label}: the call was cancelled (${messageOf(reason)})`
    return isDeadline(reason) ? { error: new McpTimeoutError(server, message), suspect: true } : { error: new CancelledError(message) }
  }
  if (isTimeout(err)) {
    return { error: new McpTimeoutError(server, `MCP server "${server}" did not answer ${label} within ${timeoutMs} ms`), suspect: true }
  }
  const refusal = refusalOf(err)
  if (refusal !== undefined) {
    const message = `MCP server "${server}" failed ${label}: ${messageOf(err)}`
    return { error: refusal === 'too_large' ? new McpAnswerTooLargeError(server, message, { cause: err }) : new McpInvalidAnswerError(message) }
  }
  if (isConnectionLoss(err)) {
    return {
      error: new McpConnectionLostError(server, `MCP server "${server}" went away during ${label}: ${failureMessage(err)}`, { cause: err }),
      lost: `the connection failed during ${label}: ${failureMessage(err)}`
    }
  }
  return { error: new McpRequestFailedError(server, `MCP server "${server}" failed ${label}: ${messageOf(err)}`, { cause: err }) }
}

/** The gateway's own refusal of an answer (bounded-fetch.ts): over the cap, another request's, or missing. */
function refusalOf (err: unknown): Refusal | undefined {
  if (err instanceof McpAnswerTooLargeError) return 'too_large'
  if (err instanceof McpInvalidAnswerError) return 'foreign_answer'
  if (!(err instanceof ProtocolError)) return undefined
  const mark = (err.data as Record<string, unknown> | undefined)?.[REFUSAL_MARK]
  return mark === 'too_large' || mark === 'foreign_answer' || mark === 'no_answer' ? mark : undefined
}
