// The three hook points of a call as pipeline steps: veto before, observe and transform after, and
// the observation of calls refused before any tool (unknown or unavailable), so that an audit log
// or a policy sees every call. Pre hooks do not run for those: there is nothing left to veto.
import type { HookRegistry, PostToolCallEvent } from '../call/hooks.ts'
import type { CallState, Step } from '../call/pipeline.ts'
import { CALL_STATUSES, errorCodeOf, errorMessageOf, failed, type CallStatus, type DispatchStatus, type StepResult } from '../call/outcome.ts'
import { parseArguments } from './parse-arguments.ts'

function baseEvent (call: CallState) {
  return { tool: call.entry?.name ?? call.request.name, args: call.args, callId: call.callId, sessionId: call.request.sessionId }
}

function elapsed (call: CallState, now: () => number): number {
  return Math.max(0, Math.round(now() - call.startedAt))
}

/** pre_tool_call: the first valid block directive vetoes the call with the hook's message. */
export function preHookStep (hooks: HookRegistry): Step {
  return async function preHooks (call, next) {
    const block = hooks.has('pre_tool_call') ? await hooks.runPre(baseEvent(call), call.logger) : undefined
    if (block === undefined) return await next(call)
    call.logger.info({ owner: block.owner }, 'tool call blocked by a pre_tool_call hook')
    return { ...failed('blocked', block.message), blockedBy: block.owner }
  }
}

/** error_type and error_message of a failed call, for hooks that audit failures without parsing the result. */
function errorFields (result: StepResult): { error_type?: string, error_message?: string } {
  if (result.status === 'ok') return {}
  return { error_type: result.errorType ?? errorCodeOf(result.status), error_message: result.message ?? errorMessageOf(result.content) }
}

function postEvent (call: CallState, result: StepResult, now: () => number): PostToolCallEvent {
  const event = { ...baseEvent(call), result: result.content, durationMs: elapsed(call, now), status: result.status, ...errorFields(result) }
  if (result.status !== 'blocked') return event
  // The tool never ran: a duration of 0, and who blocked it and why.
  return { ...event, durationMs: 0, blocked: { by: result.blockedBy ?? 'unknown', reason: result.message ?? result.content } }
}

const OBSERVED: ReadonlySet<DispatchStatus> = new Set(CALL_STATUSES)

/** post_tool_call: observes every call that reached the tool (status and duration included). */
export function postHookStep (hooks: HookRegistry, now: () => number): Step {
  return async function postHooks (call, next) {
    // Decided when the call starts: a hook registered while a call runs sees the calls that start after it.
    const observed = hooks.has('post_tool_call')
    const result = await next(call)
    if (observed && OBSERVED.has(result.status)) await hooks.runPost(postEvent(call, result, now), call.logger)
    return result
  }
}

/**
 * post_tool_call for the calls that never reached a tool: unknown (or outside the caller's
 * toolsets) and unavailable. The arguments are read as far as they parse, for the audit trail.
 */
export function refusedCallHookStep (hooks: HookRegistry, now: () => number): Step {
  return async function refusedCallHooks (call, next) {
    const observed = hooks.has('post_tool_call')
    const result = await next(call)
    if (!observed || OBSERVED.has(result.status)) return result
    const parsed = parseArguments(call.request.args)
    const args = 'args' in parsed ? parsed.args : {}
    await hooks.runPost({ ...baseEvent(call), args, result: result.content, durationMs: elapsed(call, now), status: result.status, ...errorFields(result) }, call.logger)
    return result
  }
}

/** transform_tool_result: the first string returned replaces what the handler produced. */
export function transformStep (hooks: HookRegistry, now: () => number): Step {
  return async function transform (call, next) {
    const transforming = hooks.has('transform_tool_result')
    const result = await next(call)
    if (!transforming || (result.status !== 'ok' && result.status !== 'error')) return result
    const status: CallStatus = result.status
    const replaced = await hooks.runTransform({ ...baseEvent(call), result: result.content, durationMs: elapsed(call, now), status }, call.logger)
    return replaced === undefined ? result : { ...result, content: replaced }
  }
}
