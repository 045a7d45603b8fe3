// Caps a result string while keeping both ends: the head says what the result is, the tail holds
// the newest output (the end of a log), which upstream used to lose by keeping only the head.

/** The full result kept under `id`, and how whoever reads the notice can reach the rest. */
export interface KeptAs {
  id: string
  /** `tool`: the caller may call read_result; `http`: only GET /results/:id reaches it. */
  via: 'tool' | 'http'
}

export interface Truncation {
  content: string
  truncated: boolean
  originalLength: number
}

const HIGH_SURROGATE = /[\uD800-\uDBFF]$/
const LOW_SURROGATE = /^[\uDC00-\uDFFF]/

function marker (cut: number, total: number, kept: KeptAs | undefined, offset: number): string {
  const counts = `truncated ${cut} of ${total} characters`
  if (kept === undefined) return `\n\n[... ${counts} ...]\n\n`
  // The offset is where the cut begins: one call reads on from exactly what the model missed.
  if (kept.via === 'tool') return `\n\n[... ${counts}; the full result is kept: call read_result with {"id": "${kept.id}", "offset": ${offset}} to read them ...]\n\n`
  return `\n\n[... ${counts}; the full result is kept: GET /results/${kept.id}?offset=${offset} reads them ...]\n\n`
}

/**
 * Returns `content` unchanged when it fits in `maxChars`; otherwise the head and the tail around a
 * marker giving the counts, no longer than `maxChars` in total, never splitting a surrogate pair.
 * A cap too small for the marker gives the marker alone (the one case over the cap).
 * `headShare` is the part of the kept characters given to the head (the tail gets the rest).
 * `kept`: where the full result is kept; the notice then says how to read what was cut.
 */
export function truncateResult (content: string, maxChars: number, headShare = 0.4, kept?: KeptAs): Truncation {
  const originalLength = content.length
  if (!(originalLength > maxChars)) return { content, truncated: false, originalLength }
  const limit = Math.max(0, Math.floor(maxChars))
  // The marker's own length depends on the number it prints; size it for the worst case first.
  const budget = limit - marker(originalLength, originalLength, kept, originalLength).length
  if (budget <= 0) {
    // No room for any of the result beside the notice: the notice alone, even over the cap. The
    // model must always be told that the result was cut (a bare prefix reads as the whole result).
    return { content: marker(originalLength, originalLength, kept, 0).trim(), truncated: true, originalLength }
  }
  const headLength = Math.floor(budget * headShare)
  let head = content.slice(0, headLength)
  let tail = content.slice(originalLength - (budget - headLength))
  if (HIGH_SURROGATE.test(head)) head = head.slice(0, -1)
  if (LOW_SURROGATE.test(tail)) tail = tail.slice(1)
  const cut = originalLength - head.length - tail.length
  return { content: head + marker(cut, originalLength, kept, head.length) + tail, truncated: true, originalLength }
}
