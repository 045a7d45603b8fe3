// The helpers tools use to build their results (a string, or text with media), and the test for a
// tool-level error. JSON.stringify keeps non-ASCII text as is, which saves the model tokens over \u escapes.
import type { MediaResult, ToolMedia } from './types.ts'

/** A successful result: the data as JSON. */
export function toolResult (data: unknown): string {
  return JSON.stringify(data ?? null)
}

/**
 * A successful result with images or audio beside its text: `text` is a string as it is, anything
 * else as JSON (like toolResult). The gateway checks each item (type, base64, size) when the call
 * ends; an item it refuses is dropped with a note in the text.
 */
export function mediaResult (text: unknown, media: ToolMedia[]): MediaResult {
  return { text: typeof text === 'string' ? text : toolResult(text), media }
}

/** A tool-level failure the model can read: `{"error": message, ...extra}`. */
export function toolError (message: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ ...extra, error: message })
}

/** A result that is a JSON object with a truthy `error` field counts as a tool-level failure. */
export function isErrorResult (content: string): boolean {
  // Cheap pre-check: only objects can carry an error field, so skip the parse for everything else.
  if (content.length === 0 || content.trimStart()[0] !== '{' || !content.includes('"error"')) return false
  try {
    const parsed: unknown = JSON.parse(content)
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) &&
      Boolean((parsed as { error?: unknown }).error)
  } catch {
    return false
  }
}
