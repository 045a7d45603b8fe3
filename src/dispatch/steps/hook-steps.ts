// The three hook points of a call as pipeline steps: veto before, observe and transform after.
import type { HookRegistry } from '../hooks.ts'
import { afterOutput, entryOf, type CallState, type Step } from '../pipeline.ts'
import { CALL_STATUSES, failed, type CallStatus, type DispatchStatus } from '../outcome.ts'

function baseEvent (call: CallState) {
  return { tool: entryOf(call).name, args: call.args, callId: call.callId, sessionId: call.request.sessionId }
}

/** pre_tool_call: the first valid block directive vetoes the call with the hook's message. */
export function preHookStep (hooks: HookRegistry): Step {
  return function preHooks (call, next) {
    if (!hooks.has('pre_tool_call')) return next(call)
    return hooks.runPre(baseEvent(call), call.logger).then((block) => {
      if (block === undefined) return next(call)
      call.logger.info({ owner: block.owner }, 'tool call blocked by a pre_tool_call hook')
      return failed('blocked', block.message)
    })
  }
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
      const durationMs = Math.max(0, Math.round(now() - call.startedAt))
      return hooks.runPost({ ...baseEvent(call), result: result.content, durationMs, status: result.status as CallStatus }, call.logger)
        .then(() => result)
    })
  }
}

/** transform_tool_result: the first string returned replaces what the handler produced. */
export function transformStep (hooks: HookRegistry): Step {
  return function transform (call, next) {
    if (!hooks.has('transform_tool_result')) return next(call)
    return afterOutput(next(call), (result) => {
      if (result.status !== 'ok' && result.status !== 'error') return result
      return hooks.runTransform({ ...baseEvent(call), result: result.content, status: result.status }, call.logger)
        .then((replaced) => replaced === undefined ? result : { ...result, content: replaced })
    })
  }
}
