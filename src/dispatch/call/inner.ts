// A call a handler makes of another tool (ctx.callTool, which execute_code's scripts use): a
// dispatch request of its own, built from the outer call's so that it carries the same caller (its
// principal, identity and scope) and no more. It runs through every step (coercion, validation,
// hooks, approvals, truncation), under the outer call's signal and within the time its deadline
// leaves, and the entry counts and audits it as any call. It cannot ask the caller a question, nor
// wait for a person's approval: nobody answers inside a call. It cannot make inner calls itself.
import type { InnerCallResult } from '../../registry/types.ts'
import type { TraceParent } from '../../tracing/tracer.ts'
import type { Dispatched } from './outcome.ts'
import type { CallState, DispatchRequest } from './pipeline.ts'

export interface InnerCallContext {
  /** The outer handler's signal: its deadline, its caller going away, shutdown. */
  readonly signal: AbortSignal
  /** What the outer call's deadline leaves. */
  readonly withinMs: number
  /** The outer call's span, when tracing. */
  readonly trace: TraceParent | undefined
}

export async function callInner (runInner: (request: DispatchRequest) => Promise<Dispatched>, outer: CallState, name: string, args: unknown, context: InnerCallContext): Promise<InnerCallResult> {
  const from = outer.request
  const request: DispatchRequest = {
    name,
    args,
    sessionId: from.sessionId,
    principal: from.principal,
    identity: from.identity,
    visible: from.visible,
    logger: from.logger,
    signal: context.signal,
    trace: context.trace,
    outer: { tool: outer.entry?.name ?? from.name, callId: outer.callId, withinMs: context.withinMs }
  }
  const { outcome } = await runInner(request)
  return { status: outcome.status, content: outcome.content, callId: outcome.callId }
}
