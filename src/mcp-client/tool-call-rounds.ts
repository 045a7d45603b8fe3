// A relayed tools/call from its first request to its final result. A 2026-07-28 server may answer
// input_required (multi round-trip requests, MCP 2026-07-28 basic/patterns/mrtr): its questions go to
// this call's own caller (ctx.ask), and the call is sent again, as a new request, with the answers
// (inputResponses) and the server's requestState echoed byte for byte. The SDK's own driver would
// answer with handlers registered on the client, which cannot know whose caller to ask; its manual
// path (allowInputRequired) hands each round back here. An answer with requestState alone is sent
// again after a short pause (the server shedding load). At most 10 rounds, as the SDK's driver. A
// server that offers the Tasks extension may answer with a task handle instead: task-follower.ts.
import { setTimeout as sleep } from 'node:timers/promises'
import type { Tool } from '@modelcontextprotocol/client'
import { McpInvalidAnswerError, McpRequestFailedError } from '../shared/errors.ts'
import { callParams, type CallOptions } from './call-options.ts'
import { offersTasks, tasksDeclaration } from './client-capabilities.ts'
import type { McpConnection } from './connection.ts'
import { mapCallResult, type MappedResult } from './result.ts'
import { followTask } from './task-follower.ts'
import { taskHandleOf } from './task-handles.ts'
import { askCaller, upstreamQuestions, type CallerSide } from './upstream-questions.ts'

/** Input rounds one call may take, the SDK driver's own cap (inputRequired.maxRounds). */
export const MAX_INPUT_ROUNDS = 10

/** The pause before a retry that answers nothing (an answer with requestState alone), the SDK driver's own. */
export const STATE_ONLY_PAUSE_MS = 250

/** What a retried tools/call adds to its params. */
export interface RetryParams {
  inputResponses?: Record<string, Record<string, unknown>>
  /** The server's, echoed byte for byte. */
  requestState?: string
}

/** What one tools/call request got: its result, questions for the caller (2026-07-28), or a task handle (Tasks extension). */
export type ToolCallRound =
  | { kind: 'complete', mapped: MappedResult }
  | { kind: 'input_required', inputRequests: unknown, requestState?: string }
  | { kind: 'task', handle: Record<string, unknown> }

export async function callToCompletion (connection: McpConnection, tool: string, args: Record<string, unknown>, options: CallOptions, caller: CallerSide): Promise<MappedResult> {
  const server = connection.server
  let retry: RetryParams = {}
  for (let round = 0; ; round++) {
    const answer = await callToolRound(connection, tool, args, options, retry)
    if (answer.kind === 'complete') return answer.mapped
    if (answer.kind === 'task') return await followTask(connection, tool, answer.handle, options, caller)
    if (round === MAX_INPUT_ROUNDS) {
      throw new McpRequestFailedError(server, `MCP server "${server}" still asked for input on tools/call "${tool}" after ${MAX_INPUT_ROUNDS} rounds; the call was given up`)
    }
    const questions = upstreamQuestions(server, answer.inputRequests)
    retry = answer.requestState === undefined ? {} : { requestState: answer.requestState }
    if (Object.keys(questions).length > 0) retry.inputResponses = await askCaller(caller.ask, server, tool, questions)
    else await sleep(STATE_ONLY_PAUSE_MS, undefined, { signal: caller.signal })
  }
}

/**
 * One tools/call request, `retry` added to its params. To a 2026-07-28 server that offers the Tasks
 * extension the request declares it (client-capabilities.ts), and a task handle is a valid answer;
 * to any other a task handle is refused, as the extension has it.
 */
export async function callToolRound (connection: McpConnection, tool: string, args: Record<string, unknown>, options: CallOptions, retry: RetryParams): Promise<ToolCallRound> {
  const server = connection.server
  const modern = connection.protocolEra === 'modern'
  const tasks = modern && offersTasks(connection.capabilities)
  const params = { ...callParams(tool, args, options, tasks ? tasksDeclaration() : undefined), ...retry }
  const toolDefinition = modern ? withoutOutputSchema(connection.tools, tool) : undefined
  return await connection.request(`tools/call "${tool}"`, async (client, request): Promise<ToolCallRound> => {
    let result: Record<string, unknown>
    try {
      // The manual multi-round-trip path: an input_required answer comes back here, for this call's caller.
      result = await client.callTool(params, { ...request, allowInputRequired: true, ...(toolDefinition === undefined ? {} : { toolDefinition }) })
    } catch (err) {
      const handle = taskHandleOf(err)
      if (handle === undefined) throw err
      if (!tasks) {
        const why = modern ? 'the server did not offer it in server/discover' : 'MCP 2025-era servers have no such extension'
        throw new McpInvalidAnswerError(`MCP server "${server}" answered tools/call "${tool}" with a task handle, though the request did not declare the Tasks extension (${why}); it was refused`)
      }
      return { kind: 'task', handle }
    }
    if (result.resultType !== 'input_required') return { kind: 'complete', mapped: mapCallResult(result) }
    return { kind: 'input_required', inputRequests: result.inputRequests ?? {}, ...(typeof result.requestState === 'string' ? { requestState: result.requestState } : {}) }
  }, options)
}

/**
 * The listed tool without its outputSchema, when it has one: the SDK checks that a result of such a
 * tool carries structuredContent, and an input_required answer carries none. The gateway checks no
 * output schema (the model reads the result either way); the SDK still builds the tool's
 * `Mcp-Param-*` headers from the inputSchema given here.
 */
function withoutOutputSchema (tools: readonly Tool[], name: string): Tool | undefined {
  const tool = tools.find((listed) => listed.name === name)
  if (tool?.outputSchema === undefined) return undefined
  const { outputSchema: _unchecked, ...rest } = tool
  return rest as Tool
}
