// The batch dialects in one table, and the detection of a body's dialect from its shape: explicit
// and unambiguous, so a body mixing dialects or matching none is refused naming the accepted shapes.
import { Type } from 'typebox'
import type { Dispatched } from '../call/outcome.ts'
import { BadRequestError } from '../../shared/errors.ts'
import { anthropic, AnthropicAnswer, AnthropicBody } from './anthropic.ts'
import { chat, ChatAnswer, ChatBody } from './chat.ts'
import { isRecord } from '../../shared/objects.ts'
import { type AnswerOptions, type BatchCall, type Dialect } from './dialect.ts'
import { gemini, GeminiAnswer, GeminiBody } from './gemini.ts'
import { responses, ResponsesAnswer, ResponsesBody } from './responses.ts'

export type { BatchCall } from './dialect.ts'

const DIALECTS: readonly Dialect[] = [chat, responses, anthropic, gemini]

const ACCEPTED = DIALECTS.map((dialect) => dialect.shape).join('; ')
const PARALLEL_FLAGS = ['parallel', 'parallel_tool_calls'] as const

export interface ParsedBatch {
  dialect: Dialect
  calls: BatchCall[]
  /** `parallel: false` (or a request's `parallel_tool_calls: false`): the calls run one after another. */
  sequential: boolean
  options: AnswerOptions
}

/** The lists of a body where `dialect` may find calls, each with the name errors give it. */
function listsOf (body: unknown, dialect: Dialect): Array<[unknown[], string]> {
  if (Array.isArray(body)) return dialect.bareArray ? [[body, 'body']] : []
  if (!isRecord(body)) return []
  const lists: Array<[unknown[], string]> = []
  for (const key of dialect.containers) {
    const value = body[key]
    if (Array.isArray(value)) lists.push([value, key])
    // A Chat body names its dialect by tool_calls alone: a non-array there is a mistake, not another dialect.
    else if (value !== undefined && dialect === chat) throw new BadRequestError(`${key} must be an array of tool calls`)
  }
  return lists
}

function sequentialOf (body: unknown): boolean {
  if (!isRecord(body)) return false
  for (const flag of PARALLEL_FLAGS) {
    const value = body[flag]
    if (value !== undefined && typeof value !== 'boolean') throw new BadRequestError(`${flag} must be true or false (got ${JSON.stringify(value)?.slice(0, 40)})`)
    if (value === false) return true
  }
  return false
}

function toolReferencesOf (body: unknown, dialect: Dialect): boolean {
  const value = isRecord(body) ? body.tool_references : undefined
  if (value === undefined) return false
  if (typeof value !== 'boolean') throw new BadRequestError(`tool_references must be true or false (got ${JSON.stringify(value)?.slice(0, 40)})`)
  if (value && dialect !== anthropic) throw new BadRequestError(`tool_references applies to Anthropic bodies only (Anthropic's tool search), not to ${dialect.name}`)
  return value
}

/** Reads a batch body: its dialect, its calls (each checked), and whether they must run in order. */
export function parseBatch (body: unknown): ParsedBatch {
  const found: Array<{ dialect: Dialect, lists: Array<[unknown[], string]> }> = []
  for (const dialect of DIALECTS) {
    const lists = listsOf(body, dialect)
    // Chat claims its lists whole; the others only where a list holds one of their calls.
    if (lists.length > 0 && (dialect === chat || lists.some(([list]) => list.some(dialect.isCall)))) found.push({ dialect, lists })
  }
  if (found.length > 1) {
    throw new BadRequestError(`the body mixes tool calls of ${found.map(({ dialect }) => dialect.name).join(' and ')}: send one dialect per batch, one of: ${ACCEPTED}`)
  }
  if (found.length === 0) throw new BadRequestError(`the body holds no tool call in a shape the gateway knows; send one of: ${ACCEPTED}`)
  const [{ dialect, lists }] = found
  const calls = lists.flatMap(([list, where]) => dialect.callsOf(list, where))
  if (calls.length === 0) throw new BadRequestError(`the ${dialect.name} body holds no tool call to run`)
  return { dialect, calls, sequential: sequentialOf(body), options: { toolReferences: toolReferencesOf(body, dialect) } }
}

/** The answer to a batch: one answer per call in the dialect's own shape, and the envelopes. */
export function answerBatch (batch: ParsedBatch, answers: readonly Dispatched[]): Record<string, unknown> {
  return {
    [batch.dialect.answerKey]: batch.calls.map((call, i) => batch.dialect.answer(call, answers[i], batch.options)),
    results: answers.map(({ outcome }) => outcome)
  }
}

/** Every accepted body, for the OpenAPI document (the route checks bodies with parseBatch). */
export const BatchBody = Type.Union([ChatBody, ResponsesBody, AnthropicBody, GeminiBody], {
  description: 'The tool calls of a model turn, in one dialect: Chat tool_calls, Responses function_call items, Anthropic tool_use blocks or Gemini functionCall parts. `parallel: false` (or a request\'s `parallel_tool_calls: false`) runs them in order.'
})

const results = Type.Array(Type.Ref('Envelope'), { description: 'The full envelope per call, in input order.' })

/** The answer, in the body's dialect, beside the envelopes. */
export const BatchAnswer = Type.Union([ChatAnswer, ResponsesAnswer, AnthropicAnswer, GeminiAnswer].map((answer) =>
  Type.Object({ ...answer.properties, results }, { description: (answer as { description?: string }).description })), {
  $id: 'BatchAnswer',
  description: 'One answer per call in the dialect of the body (messages, items, content or parts), and the envelopes.'
})
