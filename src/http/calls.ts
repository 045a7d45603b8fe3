// The life of a tool call at the edge: an HTTP request (or an MCP caller) becomes a dispatch request
// (headers read, the caller's scope applied), the call is counted in flight (draining waits for it)
// and in the metrics, and it is cancelled when its client goes away or the gateway gives up on shutdown.
import type { FastifyRequest } from 'fastify'
import type { Caller } from '../access/caller.ts'
import type { AuditCommon, CallVia } from '../audit/event.ts'
import type { KeyScope } from '../access/key-scope.ts'
import fp from 'fastify-plugin'
import type { Logger } from 'pino'
import type { Cancellation } from '../dispatch/call/cancellation.ts'
import type { Dispatched } from '../dispatch/call/outcome.ts'
import type { DispatchRequest } from '../dispatch/call/pipeline.ts'
import { auditContext, callAuditEvent } from './audit.ts'
import { ConnectionCancellations } from './connection-cancellations.ts'
import { numericHeader } from './query.ts'
import type { TraceParent } from '../tracing/tracer.ts'

declare module 'fastify' {
  interface FastifyInstance {
    calls: Calls
  }
}

/** What another protocol (MCP) adds to a call beside what its request or caller carries. */
export interface CallExtras {
  /** Aborts the call besides the connection closing (an MCP `notifications/cancelled`). */
  signal?: AbortSignal
  /** Receives the handler's progress reports. */
  onProgress?: DispatchRequest['onProgress']
  /** Narrows what the caller may call below its key's scope (an MCP toolset selection). */
  visible?: (tool: string) => boolean
  /** The span the call's span hangs from, over the caller's (an MCP request's `_meta.traceparent`). */
  trace?: TraceParent
  /** How the tool's questions reach the caller (ctx.ask); none: the caller cannot be asked. */
  ask?: DispatchRequest['ask']
  /** How a call held for approval gets it; default: refused naming its approval (app.approvals). */
  approve?: DispatchRequest['approve']
  /**
   * The call obeys `signal` alone, not its caller's connection: a call that may outlive its request
   * (a question's answer comes in another one) is given a signal that follows the connection only
   * until then (src/calls/question-relay.ts).
   */
  detachable?: boolean
}

/** What a REST call that outlives its request (Prefer: respond-async, an event stream) adds to it. */
export interface StartExtras {
  /** Stops the call, in place of its connection going away. */
  signal?: AbortSignal
  /** Receives the handler's progress reports. */
  onProgress?: DispatchRequest['onProgress']
  /** How the tool's questions reach the caller. */
  ask?: DispatchRequest['ask']
  /** How a call held for approval waits for it (app.approvals.waiting); default: refused naming it. */
  approve?: DispatchRequest['approve']
}

export interface Calls {
  /**
   * Runs one tool call for a REST `request`; rejects only on a bad per-call header. `detached`: the
   * call is not cancelled when the client goes away (a call made with an Idempotency-Key).
   * `extras.signal` replaces the connection's (a call that outlives its request obeys its own).
   */
  start: (request: FastifyRequest, name: string, args: unknown, callId: string | undefined, detached?: boolean, extras?: StartExtras) => Promise<Dispatched>
  /** Runs one tool call for a caller that is not an HTTP request of its own (MCP, over /mcp or stdio). */
  run: (caller: Caller, name: string, args: unknown, extras?: CallExtras) => Promise<Dispatched>
  /** What cancels the calls of `request`'s connection: the client going away, or shutdown giving up. */
  cancellationOf: (request: FastifyRequest) => Cancellation
}

/** Outside the caller's toolsets a tool does not exist for it; `narrower` can only take more away. */
function visibleTo (scope: KeyScope, narrower: ((tool: string) => boolean) | undefined): ((tool: string) => boolean) | undefined {
  if (!scope.restricted) return narrower
  if (narrower === undefined) return (tool) => scope.mayUse(tool)
  return (tool) => scope.mayUse(tool) && narrower(tool)
}

/** A signal that fires when either does (an MCP message's own cancel, or its connection's). */
function eitherSignal (a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (a === undefined || b === undefined) return a ?? b
  return AbortSignal.any([a, b])
}

/** The dispatch request of a call by a caller that is not an HTTP request of its own. */
function callOf (caller: Caller, name: string, args: unknown, extras: CallExtras | undefined): DispatchRequest {
  return {
    name,
    visible: visibleTo(caller.scope, extras?.visible),
    args,
    sessionId: caller.sessionId,
    principal: caller.principal,
    identity: caller.identity,
    signal: extras?.detachable === true ? extras.signal : eitherSignal(caller.cancellation?.signal, extras?.signal),
    timeoutMs: caller.limits?.timeoutMs,
    maxResultChars: caller.limits?.maxResultChars,
    onProgress: extras?.onProgress,
    logger: caller.logger,
    trace: extras?.trace ?? caller.trace,
    ask: extras?.ask,
    approve: extras?.approve
  }
}

/** An inner call's audit context: its outer call's, naming that call. */
function innerContext (context: AuditCommon, inner: DispatchRequest): AuditCommon {
  return { ...context, detail: { ...context.detail, outerCallId: inner.outer?.callId, outerTool: inner.outer?.tool } }
}

/** How a REST call came in: a Prefer: respond-async request, a batch, or one call. */
function viaOf (request: FastifyRequest): CallVia {
  const { prefer } = request.headers
  if (prefer !== undefined && /respond-async/i.test(String(prefer))) return 'async'
  // The URL, not request.routeOptions, which builds a new object on every read.
  const { url } = request
  return url === '/dispatch' || url.startsWith('/dispatch?') ? 'batch' : 'rest'
}

export default fp(async function calls (app) {
  const { audit, gateway, lifecycle, metrics, tracer } = app
  const cancellations = new ConnectionCancellations(gateway.shutdownSignal)

  /**
   * Counts the call in, runs it, and counts it out (no outcome: the dispatcher failed, which it never
   * should); every call passes here, so here is its one audit line (queued: written off the call's path).
   */
  async function launch (call: DispatchRequest, via: CallVia, context: AuditCommon): Promise<Dispatched> {
    // A handler's own calls of other tools (ctx.callTool) pass here too, as the same caller; they
    // make none themselves (an inner request has no runInner).
    if (via !== 'inner') call.runInner = async (inner) => await launch(inner, 'inner', innerContext(context, inner))
    lifecycle.enter()
    metrics.callStarted()
    let answer: Dispatched | undefined
    try {
      answer = await gateway.dispatcher.dispatch(call)
      return answer
    } finally {
      metrics.callEnded(answer?.outcome)
      lifecycle.leave()
      if (audit.enabled) audit.record(callAuditEvent(call, via, context, answer?.outcome))
    }
  }

  async function start (request: FastifyRequest, name: string, args: unknown, callId: string | undefined, detached = false, extras?: StartExtras): Promise<Dispatched> {
    const { headers, scope } = request
    // Read before the call is counted in: a bad header throws here.
    const timeoutMs = numericHeader(headers, 'x-tool-timeout-ms')
    const maxResultChars = numericHeader(headers, 'x-max-result-chars')
    return await launch({
      name,
      visible: visibleTo(scope, undefined),
      args,
      callId,
      sessionId: headers['x-session-id'] as string | undefined,
      principal: request.principal?.name,
      identity: request.identity,
      signal: extras?.signal ?? (detached ? gateway.shutdownSignal : cancellations.of(request.raw.socket).signal),
      timeoutMs,
      maxResultChars,
      onProgress: extras?.onProgress,
      ask: extras?.ask,
      approve: extras?.approve ?? app.approvals.refusing(request.principal?.name ?? 'anonymous'),
      logger: request.log as unknown as Logger,
      // Read only when tracing: an untraced request has no such property at all.
      trace: tracer === undefined ? undefined : request.traceSpan?.context
    }, audit.enabled ? viaOf(request) : 'rest', audit.enabled ? auditContext(request) : {})
  }

  const cancellationOf = (request: FastifyRequest): Cancellation => cancellations.of(request.raw.socket)

  const run = async (caller: Caller, name: string, args: unknown, extras?: CallExtras): Promise<Dispatched> =>
    await launch(callOf(caller, name, args, { ...extras, approve: extras?.approve ?? app.approvals.refusing(caller.principal ?? 'anonymous') }), 'mcp', { principal: caller.principal, requestId: caller.requestId, traceId: caller.traceId })
  app.decorate('calls', { start, run, cancellationOf })
}, { name: 'calls', dependencies: ['lifecycle', 'metrics', 'access', 'tracing', 'audit', 'approvals'] })
