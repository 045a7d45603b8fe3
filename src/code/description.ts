// execute_code's description: how to write a script, and the tools in scope as TypeScript
// declarations (a dynamic schema override, computed per definitions answer: a caller is told only
// of the tools it may call). Declarations are remembered per registry generation and tool list, as
// the definitions are: a repeated request does not render them again.
import { typescriptDeclarations } from '../definitions/formats/typescript.ts'
import type { SchemaView } from '../registry/types.ts'

export const CODE_TOOL_NAME = 'execute_code'

const INTRO = 'Run a JavaScript script that calls many tools and returns one answer, instead of calling the tools one by one: ' +
  'only what the script returns (and its console.log lines) comes back, not every intermediate result. ' +
  'The code is the body of an async function: `await tools.<name>(args)` calls a tool and resolves to its result ' +
  '(parsed when it is JSON, else its text); a failed call rejects with an Error carrying the tool\'s error text; ' +
  '`return` a JSON value as the answer. Plain JavaScript only (no TypeScript syntax, no require, import, fetch, file system or timers). ' +
  'The tools in scope:'

const MAX_REMEMBERED = 32

export class CodeDescription {
  readonly #remembered = new Map<string, string>()
  readonly #generation: () => number

  constructor (generation: () => number) {
    this.#generation = generation
  }

  /**
   * The answer's other tools; an answer that holds execute_code alone (`?toolsets=code`) describes
   * every tool the caller's scripts may call, rather than none.
   */
  of (view: SchemaView): string {
    const others = view.tools.filter((tool) => tool.name !== CODE_TOOL_NAME)
    const tools = others.length > 0 ? others : view.scope.filter((tool) => tool.name !== CODE_TOOL_NAME)
    const key = `${this.#generation()}\n${tools.map((tool) => tool.name).join('\n')}`
    let text = this.#remembered.get(key)
    if (text === undefined) {
      text = tools.length === 0 ? `${INTRO} none.` : `${INTRO}\n${typescriptDeclarations(tools)}`
      if (this.#remembered.size >= MAX_REMEMBERED) this.#remembered.delete(this.#remembered.keys().next().value as string)
      this.#remembered.set(key, text)
    }
    return text
  }
}
