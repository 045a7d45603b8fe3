// The tracing seam: what the gateway asks of a tracer, in its own words. Types only, so that a
// gateway without tracing loads nothing of OpenTelemetry: the implementation (otel-tracer.ts) is
// imported by start.ts only when an exporter is configured, and every caller checks for a tracer
// (`tracer?.`) before doing any span work.
import type { IncomingHttpHeaders } from 'node:http'
import type { TraceHeaders } from '../registry/types.ts'

export type { TraceHeaders }

/** Where a span hangs: an HTTP request's span, or a context a caller sent. Opaque to the gateway. */
export interface TraceParent {
  readonly traceParentBrand: never
}

/** The span of one HTTP request, continuing the caller's `traceparent`. */
export interface RequestSpan {
  /** The parent of the dispatch spans of this request's calls. */
  readonly context: TraceParent
  /** Ends it with the response's status (5xx: ERROR). A second end is ignored. */
  end: (statusCode: number) => void
  /** Ends it for a client that went away before the answer. */
  abort: () => void
}

/** What a call's span records of its outcome (a dispatch outcome has these and more). */
export interface SpanOutcome {
  readonly status: string
  readonly truncated: boolean
  readonly originalLength: number
  readonly durationMs: number
  readonly error?: { readonly code: string, readonly message: string }
}

/** The span of one tool call through the dispatch pipeline. */
export interface DispatchSpan {
  /** Its context, to hand to whatever the call reaches (see TraceHeaders). */
  readonly headers: TraceHeaders
  /** Ends it with the outcome: status, error code, truncation, duration. */
  end: (outcome: SpanOutcome) => void
}

export interface Tracer {
  /** A server span for `method route`, child of the request's `traceparent`/`tracestate` if valid. */
  startRequest: (method: string, route: string, path: string, headers: IncomingHttpHeaders) => RequestSpan
  /** The context carried by W3C fields (an MCP request's `_meta`); undefined when there is none. */
  parentFrom: (carrier: Readonly<Record<string, unknown>>) => TraceParent | undefined
  /** A span for one call of `tool`, child of `parent` (else the root of a new trace). */
  /** `principal`: the caller (an API key's name, or user:<sub>), recorded as the span's user.id. */
  startDispatch: (tool: string, callId: string, parent: TraceParent | undefined, principal?: string) => DispatchSpan
  /** The W3C trace id of `parent` (the audit trail names it); optional: a tracer of tests may have none. */
  traceIdOf?: (parent: TraceParent) => string | undefined
  /** Exports what is still buffered and stops; called once, when the gateway closes. */
  shutdown: () => Promise<void>
}
