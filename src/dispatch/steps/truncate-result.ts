// Caps the final content to the tool's (or the call's) result size, keeping head and tail. When a
// result store is given, the full text of a successful result is kept for the caller first, and
// the notice in the content tells the model how to read what was cut (read_result, when the caller
// may call it; else GET /results/:id, for the agent's own code). A result with media is kept
// whether cut or not, so that every answer can say where its images and sounds are fetched.
import type { ResultStore } from '../../results/result-store.ts'
import { entryOf, type CallState, type Step } from '../call/pipeline.ts'
import type { StepResult } from '../call/outcome.ts'
import { mediaNote } from '../call/media.ts'
import { truncateResult, type KeptAs } from '../call/truncate.ts'

export interface KeepCutResults {
  store: ResultStore
  /** Whether this caller can call read_result (it is registered and within the caller's scope). */
  toolCallable: (call: CallState) => boolean
}

/** `maxChars(call)` decides the cap: the per-call override within limits, else the tool's own. */
export function truncateStep (maxChars: (call: Parameters<Step>[0]) => number, keep?: KeepCutResults): Step {
  async function keptAs (call: CallState, result: StepResult): Promise<KeptAs | undefined> {
    // Only successes: a failure's text is cleaned of credentials after this step (error-content.ts),
    // and a kept copy would be read back uncleaned.
    if (keep === undefined || result.status !== 'ok') return undefined
    const id = await keep.store.keepShared(call.request.principal, result.content)
    return id === undefined ? undefined : { id, via: keep.toolCallable(call) ? 'tool' : 'http' }
  }
  /** The text cut to its cap as usual, the media kept beside the full text, and a note naming each after the text. */
  async function capWithMedia (call: CallState, result: StepResult & { media: NonNullable<StepResult['media']> }, max: number): Promise<StepResult> {
    const id = await keep?.store.keepShared(call.request.principal, result.content, result.media)
    const kept: KeptAs | undefined = id === undefined || keep === undefined ? undefined : { id, via: keep.toolCallable(call) ? 'tool' : 'http' }
    const media = kept === undefined ? result.media : result.media.map((item, n) => ({ ...item, url: `/results/${kept.id}/media/${n}` }))
    const cut = truncateResult(result.content, max, undefined, kept)
    // The note comes after the cap: cut with the text, it could lose the very line naming an image.
    const note = mediaNote(media)
    const content = cut.content === '' ? note : `${cut.content}\n${note}`
    return { ...result, content, truncated: cut.truncated, originalLength: cut.originalLength, resultId: kept?.id, media }
  }
  async function cutAndKeep (call: CallState, result: StepResult, max: number): Promise<StepResult> {
    const kept = await keptAs(call, result)
    const cut = truncateResult(result.content, max, undefined, kept)
    // The id is left out: the log says a result was kept, never how to read it.
    call.logger.debug({ tool: entryOf(call).name, originalLength: cut.originalLength, kept: kept !== undefined }, 'result truncated')
    return { ...result, content: cut.content, truncated: true, originalLength: cut.originalLength, resultId: kept?.id }
  }
  return async function truncate (call, next) {
    const result = await next(call)
    if (call.entry === undefined) return result
    const max = maxChars(call)
    if (result.media !== undefined) return await capWithMedia(call, result as Parameters<typeof capWithMedia>[1], max)
    // The common case costs one comparison and no promise more: nothing to keep, nothing to cut.
    if (!(result.content.length > max)) return result
    return await cutAndKeep(call, result, max)
  }
}
