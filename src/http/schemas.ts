// TypeBox schemas shared by several routes: the dispatch envelope, the error body, tool
// definitions. Every field has a description: the same schemas feed validation, serialisation,
// types and the OpenAPI document.
import { Type, type Static } from 'typebox'

export const DISPATCH_STATUSES = ['ok', 'error', 'blocked', 'timeout', 'cancelled', 'invalid', 'unavailable', 'not_found'] as const

export const ErrorBody = Type.Object({
  statusCode: Type.Integer({ description: 'The HTTP status, repeated for clients that lose it.' }),
  code: Type.String({ description: 'Stable machine-readable code, GW_ERR_*.' }),
  error: Type.String({ description: 'The HTTP reason phrase.' }),
  message: Type.String({ description: 'What went wrong, for a person.' })
}, { $id: 'ErrorBody', description: 'Every non-dispatch error answers this shape.' })

export const Envelope = Type.Object({
  tool: Type.String({ description: 'The tool name the caller asked for.' }),
  callId: Type.String({ description: 'X-Tool-Call-Id, or one the gateway made up.' }),
  ok: Type.Boolean({ description: 'True only when the tool ran and reported success.' }),
  status: Type.Enum([...DISPATCH_STATUSES], { description: 'What happened to the call.' }),
  content: Type.String({ description: 'The exact string for the tool message to the model, also on errors ({"error": "..."}).' }),
  truncated: Type.Boolean({ description: 'Whether content was cut to the result size cap.' }),
  originalLength: Type.Integer({ description: 'Length of the result before truncation, in UTF-16 code units.' }),
  durationMs: Type.Integer({ description: 'Time spent in the gateway on this call, in ms.' }),
  error: Type.Optional(Type.Object({
    code: Type.String({ description: 'GW_ERR_* code of the failure.' }),
    message: Type.String({ description: 'Why the call failed.' })
  }, { description: 'Present only when ok is false.' }))
}, { $id: 'Envelope', description: 'The answer to every dispatch, success or not.' })
export type EnvelopeType = Static<typeof Envelope>

export const OpenAITool = Type.Object({
  type: Type.Literal('function', { description: 'Always "function".' }),
  function: Type.Object({
    name: Type.String({ description: 'The tool name the model calls.' }),
    description: Type.String({ description: 'What the tool does, for the model.' }),
    parameters: Type.Record(Type.String(), Type.Unknown(), { description: 'JSON Schema of the arguments.' })
  }, { description: 'The function definition.' })
}, { $id: 'OpenAITool', description: 'A tool in OpenAI Chat Completions form.' })

/** Comma-separated toolset names in a query string. */
export const ToolsetList = (description: string) => Type.Optional(Type.String({ maxLength: 4096, description }))
