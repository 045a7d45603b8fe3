// The messages a failed script gets back, with positions in the code as the model sent it: the
// wrapper adds its prefix on the first line and its suffix on a line of its own after the code.
import { SCRIPT_FILE, SCRIPT_PREFIX } from './prelude.ts'

/** What describe() in the VM says of a thrown value. */
export type ThrownDescription =
  | { isError: true, name: string, message: string, stack: string }
  | { isError: false, shown: string }

const POSITION = new RegExp(`${SCRIPT_FILE.replace('.', '\\.')}:(\\d+):(\\d+)`)

/** " (line L, column C)" of the first frame in the user's code, or "" when the stack names none. */
export function userPosition (stack: string, code: string): string {
  const match = POSITION.exec(stack)
  if (match === null) return ''
  const line = Number(match[1])
  let column = Number(match[2])
  const lines = code.split('\n').length
  if (line > lines) return ' (at the end of the code)'
  if (line === 1) column = Math.max(1, column - SCRIPT_PREFIX.length)
  return ` (line ${line}, column ${column})`
}

export function syntaxMessage (name: string, message: string, stack: string, code: string): string {
  return `${name}: ${message}${userPosition(stack, code)}`
}

const NOT_A_FUNCTION = /not a function/
// tools.X or tools["X"] / tools['X'], as a model writes a call.
const TOOL_REFERENCE = /\btools\s*(?:\?\.\s*|\.\s*)([A-Za-z_$][\w$]*)|\btools\s*(?:\?\.\s*)?\[\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\s*\]/g

/** The first tool the code names that is not in scope, if any. */
export function missingTool (code: string, toolNames: readonly string[]): string | undefined {
  const inScope = new Set(toolNames)
  for (const match of code.matchAll(TOOL_REFERENCE)) {
    const name = match[1] ?? match[2] ?? match[3]
    if (name !== undefined && !inScope.has(name)) return name
  }
  return undefined
}

export function toolsInScope (toolNames: readonly string[]): string {
  return toolNames.length === 0 ? 'none' : toolNames.join(', ')
}

/** The message of a script that threw: `Name: message (line L, column C)`, with a hint at a missing tool. */
export function thrownMessage (thrown: ThrownDescription, code: string, toolNames: readonly string[]): string {
  if (!thrown.isError) return `the script threw a non-Error value: ${thrown.shown}`
  const text = `${thrown.name}: ${thrown.message}${userPosition(thrown.stack, code)}`
  if (thrown.name !== 'TypeError' || !NOT_A_FUNCTION.test(thrown.message)) return text
  const missing = missingTool(code, toolNames)
  return missing === undefined ? text : `${text} (no tool ${missing}; tools in scope: ${toolsInScope(toolNames)})`
}

export function readDescription (json: string): ThrownDescription {
  const value = JSON.parse(json) as Record<string, unknown>
  if (value.isError === true) {
    return { isError: true, name: String(value.name), message: String(value.message), stack: String(value.stack) }
  }
  return { isError: false, shown: String(value.shown) }
}
