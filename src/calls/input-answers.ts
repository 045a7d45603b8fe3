// The checks on a caller's answers to a tool's questions (POST /calls/:id/input) before they reach
// the tool: every question waiting gets one answer and nothing else is answered, an elicitation's
// action is one MCP defines, and an accepted form's content matches the schema the tool asked for.
// Each refusal names the field, so that the caller can fix its answer and send it again.
import { validateArguments } from '../json-schema/validate.ts'
import type { JsonSchema } from '../json-schema/document.ts'
import type { InputRequests, InputResponses } from '../registry/types.ts'
import { BadRequestError } from '../shared/errors.ts'
import type { CallStatus } from './call-record.ts'

const ACTIONS = new Set(['accept', 'decline', 'cancel'])

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Throws BadRequestError naming the field when `responses` are no answer to `requests` (the
 * questions a call waits on; none when it waits on nothing, being `status`).
 */
export function checkAnswers (requests: InputRequests | undefined, responses: unknown, status: CallStatus): asserts responses is InputResponses {
  if (!isObject(responses)) throw new BadRequestError('inputResponses must be an object of answers keyed as the questions were')
  const waiting = requests === undefined ? [] : Object.keys(requests)
  for (const key of Object.keys(responses)) {
    if (requests === undefined || !Object.hasOwn(requests, key)) {
      const why = waiting.length === 0 ? `the call waits for no answer (it is ${status})` : `the questions waiting are ${waiting.map((name) => `"${name}"`).join(', ')}`
      throw new BadRequestError(`inputResponses.${key}: no question "${key}" was asked: ${why}`)
    }
  }
  if (requests === undefined) throw new BadRequestError(`inputResponses: the call waits for no answer (it is ${status})`)
  for (const [key, request] of Object.entries(requests)) {
    const answer = responses[key]
    if (!isObject(answer)) throw new BadRequestError(`inputResponses.${key}: the question "${key}" needs an answer (an object); answer every question waiting at once`)
    if (request.method === 'elicitation/create') checkElicitation(key, request.params, answer)
  }
}

/** `{ action: accept | decline | cancel, content? }`, and an accepted form's content as requested. */
function checkElicitation (key: string, params: Record<string, unknown> | undefined, answer: Record<string, unknown>): void {
  if (typeof answer.action !== 'string' || !ACTIONS.has(answer.action)) {
    throw new BadRequestError(`inputResponses.${key}.action must be "accept", "decline" or "cancel" (got ${JSON.stringify(answer.action) ?? 'nothing'})`)
  }
  const schema = params?.requestedSchema
  if (answer.action !== 'accept' || !isObject(schema)) return
  const content = answer.content ?? {}
  if (!isObject(content)) throw new BadRequestError(`inputResponses.${key}.content must be an object (the form's fields)`)
  // The schema came from a tool, maybe an MCP server's: checked as untrusted (linear-time patterns).
  const verdict = validateArguments(content, schema as JsonSchema, false)
  if (!verdict.valid) {
    const where = verdict.paths.length === 0 ? '' : verdict.paths.map((path) => `inputResponses.${key}.content${path === '/' ? '' : path}`).join(', ')
    throw new BadRequestError(`${where === '' ? `inputResponses.${key}.content` : where}: does not match the requestedSchema of question "${key}": ${verdict.message.replace(/^invalid arguments: /, '')}`)
  }
}
