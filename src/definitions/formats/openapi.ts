// How GET /definitions documents its answer in the OpenAPI document: one array shape per format.
// The route sends prepared bytes, so these schemas describe the answer without serialising it.
import { Type } from 'typebox'

const Parameters = Type.Record(Type.String(), Type.Unknown(), { description: 'JSON Schema of the arguments (in strict mode rewritten to OpenAI\'s strict subset).' })

const ResponsesTool = Type.Object({
  type: Type.Literal('function', { description: 'Always "function".' }),
  name: Type.String({ description: 'The tool name the model calls.' }),
  description: Type.String({ description: 'What the tool does, for the model.' }),
  parameters: Parameters,
  strict: Type.Boolean({ description: 'Whether the parameters follow OpenAI\'s strict mode (said always: the Responses API defaults it to true).' })
}, { description: 'An OpenAI Responses API function tool (format=responses).' })

const AnthropicTool = Type.Object({
  name: Type.String({ description: 'The tool name the model calls.' }),
  description: Type.String({ description: 'What the tool does, for the model.' }),
  input_schema: Type.Record(Type.String(), Type.Unknown(), { description: 'JSON Schema of the arguments (an object schema).' })
}, { description: 'An Anthropic Messages client tool (format=anthropic).' })

const GeminiDeclaration = Type.Object({
  name: Type.String({ description: 'The function name the model calls.' }),
  description: Type.String({ description: 'What the function does, for the model.' }),
  parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'The arguments in Gemini\'s schema (an OpenAPI 3.0 subset: upper-case types, nullable); absent when the tool takes none.' }))
}, { description: 'A Google GenAI FunctionDeclaration (format=gemini).' })

const McpTool = Type.Object({
  name: Type.String({ description: 'The tool name.' }),
  description: Type.String({ description: 'What the tool does.' }),
  inputSchema: Type.Record(Type.String(), Type.Unknown(), { description: 'JSON Schema of the arguments.' }),
  annotations: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Behaviour hints (readOnlyHint, ...).' }))
}, { description: 'An MCP Tool, as /mcp lists it (format=mcp).' })

export const DefinitionsResponse = Type.Union([
  Type.Array(Type.Ref('OpenAITool'), { description: 'format=chat (default): OpenAI Chat Completions function tools; with strict=true each function also has `strict: true`.' }),
  Type.Array(ResponsesTool, { description: 'format=responses.' }),
  Type.Array(AnthropicTool, { description: 'format=anthropic.' }),
  Type.Array(GeminiDeclaration, { description: 'format=gemini: the functionDeclarations of one Gemini tool.' }),
  Type.Array(McpTool, { description: 'format=mcp.' })
], { description: 'The tools, sorted by name, in the requested format.' })
