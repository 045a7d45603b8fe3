// OpenAI Responses: `function_call` items (of a response's `output`, or of a request's `input`),
// answered by `function_call_output` items to send as the next request's input. A result with images
// answers `output` as a list: its text as `input_text`, then each image as `input_image` (a data
// URL). The Responses API takes no audio there: the text's note says where each sound is fetched.
import { Type, type Static } from 'typebox'
import { isRecord } from '../../shared/objects.ts'
import { callChecker, checkedCalls, imagesOf, ParallelFlags, type Dialect } from './dialect.ts'

export const ResponsesFunctionCall = Type.Object({
  type: Type.Literal('function_call', { description: 'Always "function_call".' }),
  call_id: Type.String({ minLength: 1, maxLength: 256, description: 'The call id from the model, echoed in the answer.' }),
  name: Type.String({ minLength: 1, maxLength: 256, description: 'The tool to run.' }),
  arguments: Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })], {
    description: 'The arguments: the JSON string the model emitted (an object is accepted too).'
  })
}, { description: 'A function_call item, as in a response\'s output.' })

const OtherItem = Type.Object({}, { additionalProperties: true, description: 'Any other item (a message, reasoning, a function_call_output): left alone.' })
const Items = Type.Array(Type.Union([ResponsesFunctionCall, OtherItem]), { description: 'Response items; the function_call items are run.' })

export const ResponsesBody = Type.Union([
  Items,
  Type.Object({ output: Items, ...ParallelFlags }, { description: 'A response (its output items).' }),
  Type.Object({ input: Items, ...ParallelFlags }, { description: 'A request (its input items): calls already answered by a function_call_output there are not run again.' })
], { description: 'OpenAI Responses: function_call items, as an array, a response\'s output or a request\'s input.' })

export const ResponsesAnswer = Type.Object({
  items: Type.Array(Type.Object({
    type: Type.Literal('function_call_output', { description: 'Always "function_call_output".' }),
    call_id: Type.String({ description: 'The call_id of the function_call this answers.' }),
    output: Type.Union([
      Type.String({ description: 'The result for the model (on an error, {"error": "..."}).' }),
      Type.Array(Type.Union([
        Type.Object({
          type: Type.Literal('input_text', { description: 'Always "input_text".' }),
          text: Type.String({ description: 'The result, with a note naming each image and sound and where to fetch it.' })
        }, { description: 'The text of the result.' }),
        Type.Object({
          type: Type.Literal('input_image', { description: 'Always "input_image".' }),
          image_url: Type.String({ description: 'The image as a data: URL (base64).' })
        }, { description: 'An image the tool returned.' })
      ]), { description: 'When the tool returned images: the text, then one input_image per image.' })
    ], { description: 'The result for the model: a string, or a list when the tool returned images.' })
  }, { description: 'A function_call_output item.' }), { description: 'One item per call, in input order: the next request\'s input.' })
}, { description: 'OpenAI Responses answers.' })

const check = callChecker<Static<typeof ResponsesFunctionCall>>(ResponsesFunctionCall)
const isCall = (item: unknown): boolean => isRecord(item) && item.type === 'function_call'

/** The call ids a list already answers: a whole request's input holds the earlier turns too. */
function answeredIn (list: readonly unknown[]): Set<unknown> {
  return new Set(list.filter((item) => isRecord(item) && item.type === 'function_call_output').map((item) => (item as { call_id?: unknown }).call_id))
}

export const responses: Dialect = {
  name: 'responses',
  shape: 'OpenAI Responses: an array of items, {"output": [...]} or {"input": [...]}, with {"type": "function_call", "call_id", "name", "arguments"} items',
  containers: ['output', 'input'],
  bareArray: true,
  isCall,
  callsOf: (list, where) => {
    const answered = answeredIn(list)
    return checkedCalls(list, where, isCall, check, (call) => ({ id: call.call_id, name: call.name, args: call.arguments }))
      .filter((call) => !answered.has(call.id))
  },
  answerKey: 'items',
  answer: (call, answer) => {
    const { outcome } = answer
    const images = imagesOf(answer)
    const output = images.length === 0
      ? outcome.content
      : [
          { type: 'input_text', text: outcome.content },
          ...images.map(({ mimeType, data }) => ({ type: 'input_image', image_url: `data:${mimeType};base64,${data}` }))
        ]
    return { type: 'function_call_output', call_id: call.id, output }
  }
}
