// Anthropic Messages: the `tool_use` blocks of an assistant message, answered by `tool_result` blocks
// (with `is_error`) to put in the next user message.
import { Type, type Static } from 'typebox'
import { callChecker, checkedCalls, ParallelFlags, isObject, type Dialect } from './dialect.ts'

export const AnthropicToolUse = Type.Object({
  type: Type.Literal('tool_use', { description: 'Always "tool_use".' }),
  id: Type.String({ minLength: 1, maxLength: 256, description: 'The tool_use id from the model, echoed as tool_use_id.' }),
  name: Type.String({ minLength: 1, maxLength: 256, description: 'The tool to run.' }),
  input: Type.Object({}, { additionalProperties: true, description: 'The arguments, an object.' })
}, { description: 'A tool_use content block.' })

const OtherBlock = Type.Object({}, { additionalProperties: true, description: 'Any other block (text, thinking): left alone.' })
const Blocks = Type.Array(Type.Union([AnthropicToolUse, OtherBlock]), { description: 'Content blocks; the tool_use blocks are run.' })

export const AnthropicBody = Type.Union([
  Blocks,
  Type.Object({ content: Blocks, ...ParallelFlags }, { description: 'An assistant message (role, content).' })
], { description: 'Anthropic Messages: tool_use blocks, as an array or an assistant message.' })

export const AnthropicAnswer = Type.Object({
  content: Type.Array(Type.Object({
    type: Type.Literal('tool_result', { description: 'Always "tool_result".' }),
    tool_use_id: Type.String({ description: 'The id of the tool_use this answers.' }),
    content: Type.String({ description: 'The result for the model (on an error, {"error": "..."}).' }),
    is_error: Type.Boolean({ description: 'True when the call failed.' })
  }, { description: 'A tool_result block.' }), { description: 'One block per call, in input order: the content of the next user message.' })
}, { description: 'Anthropic Messages answers.' })

const check = callChecker<Static<typeof AnthropicToolUse>>(AnthropicToolUse)
const isCall = (item: unknown): boolean => isObject(item) && item.type === 'tool_use'

export const anthropic: Dialect = {
  name: 'anthropic',
  shape: 'Anthropic Messages: an array of content blocks or {"role": "assistant", "content": [...]}, with {"type": "tool_use", "id", "name", "input"} blocks',
  containers: ['content'],
  bareArray: true,
  isCall,
  callsOf: (list, where) => checkedCalls(list, where, isCall, check, (block) => ({ id: block.id, name: block.name, args: block.input })),
  answerKey: 'content',
  answer: (call, outcome) => ({ type: 'tool_result', tool_use_id: call.id, content: outcome.content, is_error: !outcome.ok })
}
