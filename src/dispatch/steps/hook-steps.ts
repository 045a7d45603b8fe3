// The three hook points of a call as pipeline steps: veto before, observe and transform after, and
// the observation of calls refused before any tool (unknown or unavailable), so that an audit log
// or a policy sees every call. Pre hooks do not run for those: there is nothing left to veto.
import type { HookRegistry } from '../hooks.ts'
import { afterOutput, type CallState, type Step } from '../pipeline.ts'
import { CALL_STATUSES, failed, type CallStatus, type DispatchStatus, type StepResult } from '../outcome.ts'
import { parseArguments } from './parse-arguments.ts'

function baseEvent (call: CallState) {
  return { tool: call.entry?.name ?? call.request.name, args: call.args, callId: call.callId, sessionId: call.request.sessionId }
}

function elapsed (call: CallState, now: () => number): number {
  return Math.max(0, Math.round(now() - call.startedAt))
}

/** pre_tool_call: the first valid block directive vetoes the call with the hook's message. */
export function preHookStep (hooks: HookRegistry): Step {
  return function preHooks (call, next) {
    if (!hooks.has('pre_tool_call')) return next(call)
    return hooks.runPre(baseEvent(call), call.logger).then((block) => {
      if (block === undefined) return next(call)
      call.logger.info({ owner: block.owner }, 'tool call blocked by a pre_tool_call hook')
      return { ...failed('blocked', block.message), blockedBy: block.owner }
    })
  }
}

function postEvent (call: CallState, result: StepResult, now: () => number) {
  const event = { ...baseEvent(call), result: result.content, durationMs: elapsed(call, now), status: result.status }
  if (result.status !== 'blocked') return event
  // The tool never ran: a duration of 0, and who blocked it and why.
  return { ...event, durationMs: 0, blocked: { by: result.blockedBy ?? 'unknown', reason: result.message ?? result.content } }
}

const OBSERVED: ReadonlySet<DispatchStatus> = new Set(CALL_STATUSES)

/** post_tool_call: observes every call that reached the tool (status and duration included). */
export function postHookStep (hooks: HookRegistry, now: () => number): Step {
  return function postHooks (call, next) {
    // Without hooks, no wrapping: each `then` is a promise hop on every call. A hook registered
    // while a call runs sees the calls that start after it.
    if (!hooks.has('post_tool_call')) return next(call)
    return afterOutput(next(call), (result) => {
      if (!OBSERVED.has(result.status)) return result
      return hooks.runPost(postEvent(call, result, now), call.logger).then(() => result)
    })
  }
}

/**
 * post_tool_call for the calls that never reached a tool: unknown (or outside the caller's
 * toolsets) and unavailable. The arguments are read as far as they parse, for the audit trail.
 */
export function refusedCallHookStep (hooks: HookRegistry, now: () => number): Step {
  return function refusedCallHooks (call, next) {
    if (!hooks.has('post_tool_call')) return next(call)
    return afterOutput(next(call), (result) => {
      if (OBSERVED.has(result.status)) return result
      const parsed = parseArguments(call.request.args)
      const args = 'args' in parsed ? parsed.args : {}
      const event = { ...baseEvent(call), args, result: result.content, durationMs: elapsed(call, now), status: result.status }
      return hooks.runPost(event, call.logger).then(() => result)
    })
  }
}

/** transform_tool_result: the first string returned replaces what the handler produced. */
export function transformStep (hooks: HookRegistry, now: () => number): Step {
  return function transform (call, next) {
    if (!hooks.has('transform_tool_result')) return next(call)
    return afterOutput(next(call), (result) => {
      if (result.status !== 'ok' && result.status !== 'error') return result
      const status: CallStatus = result.status
      return hooks.runTransform({ ...baseEvent(call), result: result.content, durationMs: elapsed(call, now), status }, call.logger)
        .then((replaced) => replaced === undefined ? result : { ...result, content: replaced })
    })
  }
}
