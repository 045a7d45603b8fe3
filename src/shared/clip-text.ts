// Text the gateway writes into error content for the model: bounded in length, so an error never
// grows with the input that caused it (issue 11: a 1 MB body must not answer 16 MB).

/** The longest error message content carries (REFERENCE §6: sanitised errors are capped at 2 000). */
export const MAX_ERROR_CHARS = 2000

const HIGH_SURROGATE = /[\uD800-\uDBFF]$/

/** `text` cut to at most `max` UTF-16 units, ending with `…` when cut, never through a surrogate pair. */
export function clipText (text: string, max: number = MAX_ERROR_CHARS): string {
  if (text.length <= max) return text
  const head = text.slice(0, Math.max(0, max - 1))
  return `${HIGH_SURROGATE.test(head) ? head.slice(0, -1) : head}…`
}
