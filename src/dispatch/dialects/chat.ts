// OpenAI Chat Completions: the `tool_calls` of an assistant message, answered by `role: "tool"` messages.
import { Type, type Static } from 'typebox'
import { callChecker, checkedCalls, ParallelFlags, type Dialect } from './dialect.ts'

export const ChatToolCall = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 256, description: 'The tool call id from the model.' }),
  type: Type.Optional(Type.Literal('function', { description: 'Always "function".' })),
  function: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 256, description: 'The tool to run.' }),
    arguments: Type.Optional(Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })], {
      description: 'The arguments: the JSON string the model emitted (an object is accepted too).'
    }))
  }, { description: 'The function the model called.' })
}, { description: 'One tool call, exactly as in an assistant message.' })

export const ChatBody = Type.Object({
  tool_calls: Type.Array(ChatToolCall, { minItems: 1, description: 'The tool_calls of the assistant message (the whole message is accepted too).' }),
  ...ParallelFlags
}, { description: 'Chat Completions: an assistant message, or an object, with tool_calls.' })

export const ChatAnswer = Type.Object({
  messages: Type.Array(Type.Object({
    role: Type.Literal('tool', { description: 'Always "tool".' }),
    tool_call_id: Type.String({ description: 'The id of the call this answers.' }),
    content: Type.String({ description: 'The result for the model (on an error, {"error": "..."}).' })
  }, { description: 'A Chat Completions tool message.' }), { description: 'One tool message per call, in input order.' })
}, { description: 'Chat Completions answers.' })

const check = callChecker<Static<typeof ChatToolCall>>(ChatToolCall)

export const chat: Dialect = {
  name: 'chat',
  shape: 'Chat Completions: {"tool_calls": [{"id", "type": "function", "function": {"name", "arguments"}}]} (an assistant message)',
  containers: ['tool_calls'],
  bareArray: false,
  // Everything in tool_calls is a call: a malformed one is refused, not skipped.
  isCall: () => true,
  callsOf: (list, where) => checkedCalls(list, where, chat.isCall, check, (call) => ({ id: call.id, name: call.function.name, args: call.function.arguments })),
  answerKey: 'messages',
  answer: (call, { outcome }) => ({ role: 'tool', tool_call_id: call.id, content: outcome.content })
}
