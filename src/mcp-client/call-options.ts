// What a caller may ask of one request to an MCP server, and how it becomes the SDK's options.
import type { RequestOptions } from '@modelcontextprotocol/client'
import type { ToolProgress } from '../registry/types.ts'
import type { TraceHeaders } from '../tracing/tracer.ts'
import { CALL_AUTHORIZATION_HEADER } from './call-authorization.ts'
import type { CallAsker } from './call-attribution.ts'

export interface CallOptions {
  /** Aborting sends the server `notifications/cancelled` and rejects at once. */
  signal?: AbortSignal
  /** Default: none when a signal is given (the caller owns the deadline), else the server's timeoutMs. */
  timeoutMs?: number
  /** The server's progress reports; given only when wanted, since it makes the request ask for them. */
  onProgress?: (update: ToolProgress) => void
  /**
   * The calling span's W3C context: sent as HTTP headers of the request (Streamable HTTP; the
   * stdio transport has none) and in a tools/call's `_meta` (SEP-414, any transport).
   */
  traceHeaders?: TraceHeaders
  /** This call's own Authorization (a token for its caller, by token exchange); Streamable HTTP only. */
  authorization?: string
  /** Whom a 2025-era server's own requests during this request are put to (call-attribution.ts). */
  asker?: CallAsker
}

/** The SDK's options for one request; `routeHeaders` trace it to its call (call-attribution.ts) and never leave the process. */
export function sdkRequestOptions (options: CallOptions, timeoutMs: number, routeHeaders?: Record<string, string>): RequestOptions {
  const request: RequestOptions = { signal: options.signal, timeout: timeoutMs }
  if (options.onProgress !== undefined) request.onprogress = options.onProgress
  if (options.traceHeaders !== undefined || options.authorization !== undefined || routeHeaders !== undefined) {
    request.headers = {
      ...options.traceHeaders,
      ...(options.authorization === undefined ? {} : { [CALL_AUTHORIZATION_HEADER]: options.authorization }),
      ...routeHeaders
    }
  }
  return request
}

/** A tools/call's params: the caller's trace context in `_meta` when it has one, beside `meta` (a capability declared for this call). */
export function callParams (name: string, args: Record<string, unknown>, options: CallOptions, meta?: Record<string, unknown>): { name: string, arguments: Record<string, unknown>, _meta?: Record<string, unknown> } {
  if (options.traceHeaders === undefined && meta === undefined) return { name, arguments: args }
  return { name, arguments: args, _meta: { ...options.traceHeaders, ...meta } }
}
