// The tools an MCP server gets besides its own: list and read its resources, list and get its
// prompts, each pair offered only when the server declares that capability. Models call tools, not
// resources or prompts, so this is how they reach them.
import { isRecord } from '../shared/objects.ts'
import { toolResult } from '../registry/tool-result.ts'
import type { JsonSchema, ToolAnnotations, ToolHandler } from '../registry/types.ts'
import type { McpConnection } from './connection.ts'
import { mcpToolName } from './naming.ts'
import type { Desired } from './tool-sync.ts'
import { describeContentBlock, describeResourceContents } from './result.ts'

export interface UtilityTool {
  /** The unprefixed name (`list_resources`); the registry name is built like a server tool's. */
  tool: string
  description: string
  parameters: JsonSchema
  handler: ToolHandler
}

const NO_ARGUMENTS: JsonSchema = { type: 'object', properties: {}, additionalProperties: false }

/** The fields that say something: a server's empty strings are noise to the model. */
function optional<T extends Record<string, unknown>> (value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== '')) as Partial<T>
}

/** The utility tools for what `connection` offers right now, in a stable order. */
export function utilityTools (server: string, connection: McpConnection): UtilityTool[] {
  const { capabilities } = connection
  return [
    ...(capabilities.resources ? resourceTools(server, connection) : []),
    ...(capabilities.prompts ? promptTools(server, connection) : [])
  ]
}

function resourceTools (server: string, connection: McpConnection): UtilityTool[] {
  const list: UtilityTool = {
    tool: 'list_resources',
    description: `List the resources (and resource templates) MCP server "${server}" offers.`,
    parameters: NO_ARGUMENTS,
    handler: async (_args, ctx) => {
      const { resources } = await connection.request('resources/list', (client, request) => client.listResources(undefined, request), { signal: ctx.signal })
      let templates: unknown[] | undefined
      try {
        templates = (await connection.request('resources/templates/list', (client, request) => client.listResourceTemplates(undefined, request), { signal: ctx.signal })).resourceTemplates
          .map((t) => optional({ uriTemplate: t.uriTemplate, name: t.name, title: t.title, description: t.description, mimeType: t.mimeType }))
      } catch {
        // Templates are optional in the protocol; a server without them answers with an error.
      }
      return toolResult({
        resources: resources.map((r) => optional({ uri: r.uri, name: r.name, title: r.title, description: r.description, mimeType: r.mimeType })),
        ...(templates && templates.length > 0 ? { resourceTemplates: templates } : {})
      })
    }
  }
  const read: UtilityTool = {
    tool: 'read_resource',
    description: `Read one resource of MCP server "${server}" by its URI.`,
    parameters: {
      type: 'object',
      properties: { uri: { type: 'string', description: 'The resource URI, as list_resources gives it.' } },
      required: ['uri'],
      additionalProperties: false
    },
    handler: async (args, ctx) => {
      const { contents } = await connection.request('resources/read', (client, request) => client.readResource({ uri: String(args.uri) }, request), { signal: ctx.signal })
      return contents.map(describeResourceContents).join('\n')
    }
  }
  return [list, read]
}

function promptTools (server: string, connection: McpConnection): UtilityTool[] {
  const list: UtilityTool = {
    tool: 'list_prompts',
    description: `List the prompts MCP server "${server}" offers, with their arguments.`,
    parameters: NO_ARGUMENTS,
    handler: async (_args, ctx) => {
      const { prompts } = await connection.request('prompts/list', (client, request) => client.listPrompts(undefined, request), { signal: ctx.signal })
      return toolResult({
        prompts: prompts.map((p) => optional({
          name: p.name,
          title: p.title,
          description: p.description,
          arguments: p.arguments?.map((a) => optional({ name: a.name, description: a.description, required: a.required }))
        }))
      })
    }
  }
  const get: UtilityTool = {
    tool: 'get_prompt',
    description: `Get one prompt of MCP server "${server}", filled in with its arguments.`,
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'The prompt name, as list_prompts gives it.' },
        arguments: { type: 'object', description: 'Prompt arguments by name.', additionalProperties: { type: ['string', 'number', 'boolean'] } }
      },
      required: ['name'],
      additionalProperties: false
    },
    handler: async (args, ctx) => {
      // Prompt arguments are strings in the protocol; models send numbers and booleans too.
      const values = Object.fromEntries(Object.entries(isRecord(args.arguments) ? args.arguments : {}).map(([key, value]) => [key, String(value)]))
      const result = await connection.request(`prompts/get "${String(args.name)}"`, (client, request) => client.getPrompt({ name: String(args.name), arguments: values }, request), { signal: ctx.signal })
      return toolResult(optional({
        description: result.description,
        messages: result.messages.map((m) => ({ role: m.role, content: describeContentBlock(m.content) }))
      }))
    }
  }
  return [list, get]
}

const UTILITY_ANNOTATIONS: ToolAnnotations = Object.freeze({ readOnly: true })

/** The utility tools of a server as the mirror registers them (server-tools.ts). */
export function utilityDesired (server: string, connection: McpConnection): Desired[] {
  return utilityTools(server, connection).map(({ tool, description, parameters, handler }) => ({
    name: mcpToolName(server, tool),
    raw: `#${tool}`,
    description,
    parameters,
    handler,
    // They list and read what the server offers, nothing more.
    annotations: UTILITY_ANNOTATIONS,
    fingerprint: JSON.stringify([tool, description, parameters]),
    warnings: []
  }))
}
