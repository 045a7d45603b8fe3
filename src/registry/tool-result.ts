// The two helpers every tool uses to build its result string, and the test for a tool-level error.
// JSON.stringify keeps non-ASCII text as is, which saves the model tokens over \u escapes.

/** A successful result: the data as JSON. */
export function toolResult (data: unknown): string {
  return JSON.stringify(data ?? null)
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
