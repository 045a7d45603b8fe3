// Caps the final content to the tool's (or the call's) result size, keeping head and tail.
import { entryOf, type Step } from '../pipeline.ts'
import { truncateResult } from '../truncate.ts'

/** `maxChars(call)` decides the cap: the per-call override within limits, else the tool's own. */
export function truncateStep (maxChars: (call: Parameters<Step>[0]) => number): Step {
  return async function truncate (call, next) {
    const result = await next(call)
    if (call.entry === undefined) return result
    const cut = truncateResult(result.content, maxChars(call))
    if (!cut.truncated) return result
    call.logger.debug({ tool: entryOf(call).name, originalLength: cut.originalLength }, 'result truncated')
    return { ...result, content: cut.content, truncated: true, originalLength: cut.originalLength }
  }
}
