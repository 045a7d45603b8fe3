// GET /tools and GET /tools/:name: which tools work and which do not, with reasons, for operators.
// Always 200 for the list: it reports, it does not judge.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { ToolNotFoundError } from '../src/errors.ts'
import { allowedTools, mayUse } from '../src/http/access.ts'
import type { ToolEntry, ToolOrigin } from '../src/registry/types.ts'

const Origin = Type.Object({
  kind: Type.Enum(['builtin', 'plugin', 'mcp'], { description: 'Where the tool comes from.' }),
  plugin: Type.Optional(Type.String({ description: 'The plugin that registered it.' })),
  server: Type.Optional(Type.String({ description: 'The MCP server that provides it.' }))
}, { description: 'Provenance of the tool.' })

const ToolStatus = Type.Object({
  name: Type.String({ description: 'The tool name.' }),
  toolset: Type.String({ description: 'The toolset tag it registered with.' }),
  available: Type.Boolean({ description: 'Whether its availability check passes now.' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it is unavailable (or a note on a transient failure); null when none.' }),
  requiresEnv: Type.Array(Type.String(), { description: 'Environment variables it needs (information only).' }),
  emoji: Type.String({ description: 'Display emoji.' }),
  description: Type.String({ description: 'What the tool does.' }),
  origin: Origin
}, { description: 'One tool as an operator sees it.' })

export const McpServerState = Type.Object({
  server: Type.String({ description: 'The MCP server name from config.' }),
  toolset: Type.String({ description: 'The toolset its tools carry (mcp-<server>).' }),
  state: Type.Enum(['connecting', 'connected', 'reconnecting', 'circuit_open', 'disabled', 'closed'], { description: 'Connection state.' }),
  transport: Type.Enum(['stdio', 'http'], { description: 'How the gateway reaches it.' }),
  tools: Type.Integer({ description: 'Tools it currently provides.' }),
  lastError: Type.Union([Type.String(), Type.Null()], { description: 'The last failure, if any.' }),
  since: Type.String({ description: 'When it entered this state (ISO 8601).' })
}, { description: 'One MCP server as an operator sees it.' })

const ToolList = Type.Object({
  generation: Type.Integer({ description: 'Registry generation: moves on every tool change.' }),
  summary: Type.Object({
    total: Type.Integer({ description: 'Tools listed.' }),
    available: Type.Integer({ description: 'Of which available.' }),
    unavailable: Type.Integer({ description: 'Of which unavailable.' })
  }, { description: 'Counts.' }),
  tools: Type.Array(ToolStatus, { description: 'Tools sorted by name.' }),
  mcpServers: Type.Array(McpServerState, { description: 'Configured MCP servers and their state, sorted by name.' })
}, { description: 'Availability of every tool.' })

const ToolDetail = Type.Object({
  name: Type.String({ description: 'The tool name.' }),
  toolset: Type.String({ description: 'The toolset tag it registered with.' }),
  description: Type.String({ description: 'What the tool does.' }),
  emoji: Type.String({ description: 'Display emoji.' }),
  parameters: Type.Record(Type.String(), Type.Unknown(), { description: 'JSON Schema of the arguments.' }),
  requiresEnv: Type.Array(Type.String(), { description: 'Environment variables it needs (information only).' }),
  limits: Type.Object({
    timeoutMs: Type.Integer({ description: 'Deadline of one call, after config overrides.' }),
    maxResultSizeChars: Type.Union([Type.Integer(), Type.Null()], { description: 'Result cap after config overrides; null = unlimited.' })
  }, { description: 'Effective limits.' }),
  available: Type.Boolean({ description: 'Whether its availability check passes now.' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it is unavailable; null when none.' }),
  origin: Origin
}, { description: 'One tool in full.' })

function originOf (origin: ToolOrigin) {
  return origin.kind === 'plugin' ? { kind: origin.kind, plugin: origin.plugin } : origin.kind === 'mcp' ? { kind: origin.kind, server: origin.server } : { kind: origin.kind }
}

export default async function toolsRoutes (app: FastifyInstance): Promise<void> {
  const { gateway } = app

  app.get<{ Querystring: { toolset?: string } }>('/tools', {
    schema: {
      summary: 'Availability of every tool, with reasons',
      tags: ['operators'],
      querystring: Type.Object({ toolset: Type.Optional(Type.String({ description: 'Only tools with this toolset tag.' })) }, { additionalProperties: false }),
      response: { 200: ToolList }
    }
  }, async (request) => {
    const snapshot = gateway.registry.snapshot()
    const allowed = allowedTools(gateway, request.principal)
    const entries = [...snapshot.tools.values()]
      .filter((e) => mayUse(allowed, e.name) && (request.query.toolset === undefined || e.toolset === request.query.toolset))
      .sort((a, b) => (a.name < b.name ? -1 : 1))
    const verdicts = await gateway.availability.tools(entries)
    const tools = entries.map((entry) => {
      const verdict = verdicts.get(entry.name)!
      return {
        name: entry.name,
        toolset: entry.toolset,
        available: verdict.available,
        reason: verdict.reason ?? null,
        requiresEnv: [...entry.requiresEnv],
        emoji: entry.emoji,
        description: entry.description,
        origin: originOf(entry.origin)
      }
    })
    const available = tools.filter((t) => t.available).length
    return {
      generation: snapshot.generation,
      summary: { total: tools.length, available, unavailable: tools.length - available },
      tools,
      // A key limited to toolsets sees only the servers behind them.
      mcpServers: gateway.mcp.states().filter((status) => allowed === undefined || tools.some((t) => t.toolset === status.toolset))
    }
  })

  app.get<{ Params: { name: string } }>('/tools/:name', {
    schema: {
      summary: 'One tool in full: schema, toolset, limits, availability',
      tags: ['operators'],
      params: Type.Object({ name: Type.String({ description: 'The tool name.' }) }),
      response: { 200: ToolDetail, 404: Type.Ref('ErrorBody') }
    }
  }, async (request) => {
    const name = request.params.name
    const entry: ToolEntry | undefined = gateway.registry.getEntry(name)
    if (entry === undefined || !mayUse(allowedTools(gateway, request.principal), name)) throw new ToolNotFoundError(name)
    const verdict = await gateway.availability.tool(entry)
    const override = gateway.config.tools[name]
    const maxChars = override?.maxResultSizeChars ?? entry.maxResultSizeChars
    return {
      name: entry.name,
      toolset: entry.toolset,
      description: entry.description,
      emoji: entry.emoji,
      parameters: entry.schema.parameters,
      requiresEnv: [...entry.requiresEnv],
      limits: {
        timeoutMs: override?.timeoutMs ?? entry.timeoutMs ?? gateway.config.dispatch.defaultTimeoutMs,
        maxResultSizeChars: Number.isFinite(maxChars) ? maxChars : null
      },
      available: verdict.available,
      reason: verdict.reason ?? null,
      origin: originOf(entry.origin)
    }
  })
}
