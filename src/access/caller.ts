// Who is calling, for protocols that are not one HTTP request per call (MCP over /mcp and over
// stdio): what it may use, how it narrowed that, where its lines are logged and what cancels its
// calls. The REST routes do not build one: they read the Fastify request directly, on the hot path.
import type { Logger } from 'pino'
import type { Cancellation } from '../dispatch/call/cancellation.ts'
import type { CallerIdentity } from '../registry/types.ts'
import type { TraceParent } from '../tracing/tracer.ts'
import type { KeyScope } from './key-scope.ts'

/** A toolset selection (`?toolsets=…&disabled=…`, `--toolsets …`), absent parts meaning none. */
export interface ToolSelection {
  readonly toolsets?: readonly string[]
  readonly disabled?: readonly string[]
  /** Tells apart the cached tool lists of callers that see different tools. */
  readonly cacheKey: string
}

export interface Caller {
  /** What the caller's key lets it see and call. */
  readonly scope: KeyScope
  /** Handed to handlers as ctx.principal (the key's name, or how a local caller came in). */
  readonly principal: string | undefined
  /** The signed-in user (a call made with an access token), for services it is called on behalf of. */
  readonly identity?: CallerIdentity
  readonly logger: Logger
  readonly selection: ToolSelection
  /** Per-call overrides, capped by the dispatcher's maxima. */
  readonly limits?: { readonly timeoutMs?: number, readonly maxResultChars?: number }
  /** Fires when the caller goes away or the gateway gives up on shutdown: its calls are cancelled. */
  readonly cancellation?: Cancellation
  /** An agent session id, handed to handlers. */
  readonly sessionId?: string
  /** The span its calls' spans hang from (the HTTP request's), when tracing. */
  readonly trace?: TraceParent
  /** The HTTP request it came in (its id), for the audit trail; none over stdio. */
  readonly requestId?: string
  /** The W3C trace id the request continues, for the audit trail. */
  readonly traceId?: string
}

/** The selection's key for caches: the selection itself and the key scope it applies within. */
export function selectionCacheKey (scope: KeyScope, toolsets?: readonly string[], disabled?: readonly string[]): string {
  return `${toolsets?.join(',') ?? ''}\n${disabled?.join(',') ?? ''}\n${scope.cacheKey}`
}
