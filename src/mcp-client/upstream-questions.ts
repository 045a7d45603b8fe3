// Questions an MCP server puts to the gateway's caller (an input_required round, a task waiting for
// input, a 2025-era server request) on their way to that caller through ctx.ask. A malformed
// question is the server's fault and is named as such (ctx.ask would call it the tool's bug); the
// answers go back keyed as the server asked, and only for the keys it asked.
import type { InputRequestMethod, InputRequests, InputResponses, ToolContext } from '../registry/types.ts'
import { InputUnsupportedError, InternalError, McpInvalidAnswerError } from '../shared/errors.ts'
import { isRecord } from '../shared/objects.ts'

/** How a call's caller is asked: ctx.ask, or undefined when the call's context has none (built by hand). */
export type CallerAsk = ((requests: InputRequests) => Promise<InputResponses>) | undefined

/** What of its context a relayed call's rounds and task use: the questions, its end, the progress a task reports. */
export type CallerSide = Pick<ToolContext, 'signal' | 'reportProgress' | 'logger'> & { ask: CallerAsk }

const METHODS: ReadonlySet<string> = new Set<InputRequestMethod>(['elicitation/create', 'sampling/createMessage', 'roots/list'])

/** A server's questions checked: a map of at least one `{ method, params }` of the three kinds a caller answers. */
export function upstreamQuestions (server: string, asked: unknown): InputRequests {
  const invalid = (why: string): Error => new McpInvalidAnswerError(`MCP server "${server}" asked for input the gateway cannot pass on: ${why}`)
  if (!isRecord(asked)) throw invalid('inputRequests is not an object')
  const questions: InputRequests = {}
  for (const [key, entry] of Object.entries(asked)) {
    if (!isRecord(entry) || typeof entry.method !== 'string' || !METHODS.has(entry.method)) {
      throw invalid(`"${key.slice(0, 100)}" is no elicitation/create, sampling/createMessage or roots/list request`)
    }
    if (entry.params !== undefined && !isRecord(entry.params)) throw invalid(`the params of "${key.slice(0, 100)}" are not an object`)
    questions[key] = entry.params === undefined
      ? { method: entry.method as InputRequestMethod }
      : { method: entry.method as InputRequestMethod, params: entry.params }
  }
  return questions
}

/**
 * The caller's answers to the server's questions, only those asked. Rejects as ctx.ask does: with
 * GW_ERR_INPUT_UNSUPPORTED when the caller cannot answer, with the call's end when it ends first.
 */
export async function askCaller (ask: CallerAsk, server: string, tool: string, questions: InputRequests): Promise<InputResponses> {
  if (ask === undefined) {
    throw new InputUnsupportedError(`MCP server "${server}" asked the caller of ${tool} (${Object.values(questions).map((q) => q.method).join(', ')}), and this call's caller cannot be asked`)
  }
  const answers = await ask(questions)
  const kept: InputResponses = {}
  for (const key of Object.keys(questions)) {
    const answer = answers[key]
    // ctx.ask answers every key it was given: a missing one is the gateway's own fault.
    if (!isRecord(answer)) throw new InternalError(`the caller of ${tool} gave no answer to "${key.slice(0, 100)}", which MCP server "${server}" asked`)
    kept[key] = answer
  }
  return kept
}
