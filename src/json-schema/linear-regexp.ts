// The regular-expression engine for patterns from schemas we do not control (MCP servers): RE2,
// which matches in time linear in the input whatever the pattern, where a backtracking engine can
// take exponential time (`^(a+)+$` against 'aaaa…b') and freeze the event loop of the whole
// gateway. RE2 runs no lookaround and no backreference; such a pattern is refused when compiled.
import type { RegExpEngine } from 'ajv/dist/types/index.js'
import { RE2JS } from 're2js'

/** Compiles an ECMAScript pattern (as JSON Schema writes them) for RE2; throws when RE2 cannot run it. */
export function compileLinear (pattern: string): RE2JS {
  return RE2JS.compile(RE2JS.translateRegExp(pattern))
}

/** Why RE2 cannot run `pattern`, or undefined when it can. */
export function linearPatternProblem (pattern: string): string | undefined {
  try {
    compileLinear(pattern)
    return undefined
  } catch (err) {
    return (err as Error).message
  }
}

/** Ajv's `code.regExp` option: `pattern` and `patternProperties` evaluated by RE2 (its test() is unanchored, like RegExp's). */
export const linearRegExp: RegExpEngine = Object.assign((pattern: string): { test: (s: string) => boolean, toString: () => string } => {
  const compiled = compileLinear(pattern)
  return { test: (text: string) => compiled.test(text), toString: () => `re2:${pattern}` }
}, { code: 'linearRegExp' })
