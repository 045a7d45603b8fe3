// Caps the final content to the tool's (or the call's) result size, keeping head and tail. When a
// result store is given, the full text of a successful result is kept for the caller first, and
// the notice in the content tells the model how to read what was cut (read_result, when the caller
// may call it; else GET /results/:id, for the agent's own code).
import type { ResultStore } from '../../results/result-store.ts'
import { afterOutput, entryOf, type CallState, type Step } from '../pipeline.ts'
import type { StepResult } from '../outcome.ts'
import { truncateResult, type KeptAs } from '../truncate.ts'

export interface KeepCutResults {
  store: ResultStore
  /** Whether this caller can call read_result (it is registered and within the caller's scope). */
  toolCallable: (call: CallState) => boolean
}

/** `maxChars(call)` decides the cap: the per-call override within limits, else the tool's own. */
export function truncateStep (maxChars: (call: Parameters<Step>[0]) => number, keep?: KeepCutResults): Step {
  function keptAs (call: CallState, result: StepResult): KeptAs | undefined {
    // Only successes: a failure's text is cleaned of credentials after this step (error-content.ts),
    // and a kept copy would be read back uncleaned.
    if (keep === undefined || result.status !== 'ok') return undefined
    const id = keep.store.keep(call.request.principal, result.content)
    return id === undefined ? undefined : { id, via: keep.toolCallable(call) ? 'tool' : 'http' }
  }
  function cap (call: CallState, result: StepResult): StepResult {
    if (call.entry === undefined) return result
    const max = maxChars(call)
    // The common case costs one comparison: nothing to keep, nothing to cut.
    if (!(result.content.length > max)) return result
    const kept = keptAs(call, result)
    const cut = truncateResult(result.content, max, undefined, kept)
    // The id is left out: the log says a result was kept, never how to read it.
    call.logger.debug({ tool: entryOf(call).name, originalLength: cut.originalLength, kept: kept !== undefined }, 'result truncated')
    return { ...result, content: cut.content, truncated: true, originalLength: cut.originalLength, resultId: kept?.id }
  }
  return function truncate (call, next) {
    return afterOutput(next(call), (result) => cap(call, result))
  }
}
