// Caps the final content to the tool's (or the call's) result size, keeping head and tail.
import { afterOutput, entryOf, type CallState, type Step } from '../pipeline.ts'
import type { StepResult } from '../outcome.ts'
import { truncateResult } from '../truncate.ts'

/** `maxChars(call)` decides the cap: the per-call override within limits, else the tool's own. */
export function truncateStep (maxChars: (call: Parameters<Step>[0]) => number): Step {
  function cap (call: CallState, result: StepResult): StepResult {
    if (call.entry === undefined) return result
    const cut = truncateResult(result.content, maxChars(call))
    if (!cut.truncated) return result
    call.logger.debug({ tool: entryOf(call).name, originalLength: cut.originalLength }, 'result truncated')
    return { ...result, content: cut.content, truncated: true, originalLength: cut.originalLength }
  }
  return function truncate (call, next) {
    return afterOutput(next(call), (result) => cap(call, result))
  }
}
