// The shape of one tool definition in each format GET /definitions serves. The interfaces are what
// the converters return; test/definitions/sdk-types.test.ts assigns them to the SDKs' own types
// (openai, @anthropic-ai/sdk, @google/genai), so a drift from a provider's shape fails tsc.
import type { Tool as McpTool } from '@modelcontextprotocol/server'
import type { JsonSchema } from '../../registry/types.ts'
import type { GeminiSchema } from './gemini.ts'

/** OpenAI Chat Completions: a function tool, `function` nested. */
export interface ChatTool {
  type: 'function'
  function: { name: string, description: string, parameters: JsonSchema, strict?: boolean }
}

/** OpenAI Responses API: a FunctionTool, flat; `strict` always said, since the API defaults it to true. */
export interface ResponsesTool {
  type: 'function'
  name: string
  description: string
  parameters: JsonSchema
  strict: boolean
}

/** Anthropic Messages: a client tool. */
export interface AnthropicTool {
  name: string
  description: string
  input_schema: JsonSchema & { type: 'object' }
  /** With defer_loading=true: left out of the model's context until a tool_reference names it. */
  defer_loading?: boolean
}

/** Google GenAI: a FunctionDeclaration; no `parameters` for a tool without any. */
export interface GeminiDeclaration {
  name: string
  description: string
  parameters?: GeminiSchema
}

export type { McpTool }

export type FormattedTool = ChatTool | ResponsesTool | AnthropicTool | GeminiDeclaration | McpTool

/** The tool's name in any format: nested under `function` in Chat, at the top in the others. */
export function formattedToolName (tool: FormattedTool): string {
  return 'function' in tool ? tool.function.name : tool.name
}

/** The default format: an OpenAI Chat Completions function tool. */
export interface OpenAIFunctionTool {
  type: 'function'
  function: { name: string, description: string, parameters: JsonSchema }
}
