// TypeBox schemas shared by several routes: the error body and tool definitions (the dispatch
// envelope lives with the rest of the dispatch contract, src/dispatch/call/outcome.ts). Every field has a
// description: the same schemas feed validation, serialisation, types and the OpenAPI document.
import { Type } from 'typebox'

export const ErrorBody = Type.Object({
  statusCode: Type.Integer({ description: 'The HTTP status, repeated for clients that lose it.' }),
  code: Type.String({ description: 'Stable machine-readable code, GW_ERR_*.' }),
  error: Type.String({ description: 'The HTTP reason phrase.' }),
  message: Type.String({ description: 'What went wrong, for a person.' })
}, { $id: 'ErrorBody', description: 'Every non-dispatch error answers this shape.' })

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
