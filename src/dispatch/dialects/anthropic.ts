// Anthropic Messages: the `tool_use` blocks of an assistant message, answered by `tool_result` blocks
// (with `is_error`) to put in the next user message. A result with images answers its content as
// blocks: the text, then one base64 `image` block per image. Anthropic takes no audio in a
// tool_result: the text's note says where each sound is fetched.
import { Type, type Static } from 'typebox'
import { foundToolNames, SEARCH_TOOL_NAME } from '../../search/search-tool.ts'
import { MEDIA_MIME_TYPES } from '../call/media.ts'
import { isRecord } from '../../shared/objects.ts'
import { callChecker, checkedCalls, imagesOf, ParallelFlags, type Dialect } from './dialect.ts'

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
  Type.Object({
    content: Blocks,
    ...ParallelFlags,
    tool_references: Type.Optional(Type.Boolean({ description: 'true: a search_tools result also names each tool it found as a tool_reference block, which loads the tools your request sent with defer_loading (GET /definitions?format=anthropic&defer_loading=true).' }))
  }, { description: 'An assistant message (role, content).' })
], { description: 'Anthropic Messages: tool_use blocks, as an array or an assistant message.' })

export const AnthropicAnswer = Type.Object({
  content: Type.Array(Type.Object({
    type: Type.Literal('tool_result', { description: 'Always "tool_result".' }),
    tool_use_id: Type.String({ description: 'The id of the tool_use this answers.' }),
    content: Type.Union([
      Type.String({ description: 'The result for the model (on an error, {"error": "..."}).' }),
      Type.Array(Type.Union([
        Type.Object({
          type: Type.Literal('text', { description: 'Always "text".' }),
          text: Type.String({ description: 'The result, with a note naming each image and sound and where to fetch it.' })
        }, { description: 'The text of the result.' }),
        Type.Object({
          type: Type.Literal('image', { description: 'Always "image".' }),
          source: Type.Object({
            type: Type.Literal('base64', { description: 'Always "base64".' }),
            media_type: Type.Enum([...MEDIA_MIME_TYPES.image], { description: 'The image type.' }),
            data: Type.String({ description: 'The image, base64.' })
          }, { description: 'The image data.' })
        }, { description: 'An image the tool returned.' }),
        Type.Object({
          type: Type.Literal('tool_reference', { description: 'Always "tool_reference".' }),
          tool_name: Type.String({ description: 'A tool search_tools found: Anthropic loads its deferred definition.' })
        }, { description: 'With tool_references: true, one per tool a search_tools call found.' })
      ]), { description: 'When the tool returned images: the text block, then one image block per image; a search_tools result with tool_references: true: the text block, then one tool_reference block per tool found.' })
    ], { description: 'The result for the model: a string, or blocks when the tool returned images.' }),
    is_error: Type.Boolean({ description: 'True when the call failed.' })
  }, { description: 'A tool_result block.' }), { description: 'One block per call, in input order: the content of the next user message.' })
}, { description: 'Anthropic Messages answers.' })

const check = callChecker<Static<typeof AnthropicToolUse>>(AnthropicToolUse)
const isCall = (item: unknown): boolean => isRecord(item) && item.type === 'tool_use'

export const anthropic: Dialect = {
  name: 'anthropic',
  shape: 'Anthropic Messages: an array of content blocks or {"role": "assistant", "content": [...]}, with {"type": "tool_use", "id", "name", "input"} blocks',
  containers: ['content'],
  bareArray: true,
  isCall,
  callsOf: (list, where) => checkedCalls(list, where, isCall, check, (block) => ({ id: block.id, name: block.name, args: block.input })),
  answerKey: 'content',
  answer: (call, answer, options) => {
    const { outcome } = answer
    const images = imagesOf(answer)
    // Only when the body asks: a tool_reference to a tool the request does not define is an error
    // on Anthropic's side, and only the caller knows what its request defines.
    const references = options.toolReferences && outcome.ok && call.name === SEARCH_TOOL_NAME ? foundToolNames(outcome.content) : []
    const content = images.length === 0 && references.length === 0
      ? outcome.content
      : [
          { type: 'text', text: outcome.content },
          ...images.map(({ mimeType, data }) => ({ type: 'image', source: { type: 'base64', media_type: mimeType, data } })),
          ...references.map((name) => ({ type: 'tool_reference', tool_name: name }))
        ]
    return { type: 'tool_result', tool_use_id: call.id, content, is_error: !outcome.ok }
  }
}
