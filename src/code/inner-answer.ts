// What a script's `await tools.x(args)` sees of an inner call: its result parsed when it is JSON,
// else its text; a failure as the tool's error text, which the script's rejected Error carries.
import type { InnerCallResult } from '../registry/types.ts'
import type { InnerCallAnswer } from './sandbox/index.ts'

/** The text of a failure: the `error` of `{"error": "..."}`, else the content as it is. */
function errorTextOf (content: string): string {
  try {
    const parsed: unknown = JSON.parse(content)
    const error = (parsed as { error?: unknown } | null)?.error
    if (typeof error === 'string' && error !== '') return error
  } catch {}
  return content === '' ? 'the tool failed without a message' : content
}

function valueOf (content: string): unknown {
  try {
    return JSON.parse(content)
  } catch {
    return content
  }
}

export function innerAnswer (name: string, result: InnerCallResult): InnerCallAnswer {
  if (result.status === 'ok') return { ok: true, value: valueOf(result.content) }
  const text = errorTextOf(result.content)
  // The status says what a message may not: refused by a hook, out of time, not in scope.
  return { ok: false, message: result.status === 'error' ? text : `${name} ${result.status}: ${text}` }
}
