// GET /toolsets: every toolset with its resolved members, includes, aliases and availability.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { combine } from '../src/availability/queries.ts'
import { allowedTools } from '../src/http/access.ts'
import { McpServerState } from './tools.ts'

const ToolsetView = Type.Object({
  name: Type.String({ description: 'The toolset name, usable in GET /definitions?toolsets=.' }),
  kind: Type.Enum(['builtin', 'custom', 'registry'], { description: 'Built in, defined in config, or a tag of registered tools (plugin, MCP).' }),
  description: Type.String({ description: 'What the toolset is for.' }),
  tools: Type.Array(Type.String(), { description: 'Registered tools it resolves to (includes followed), sorted.' }),
  includes: Type.Array(Type.String(), { description: 'Toolsets it includes.' }),
  aliases: Type.Array(Type.String(), { description: 'Other names for it.' }),
  available: Type.Boolean({ description: 'True when at least one of its tools is available.' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why no tool of it is available; null when available.' }),
  mcpServer: Type.Optional(McpServerState)
}, { description: 'One toolset.' })

export default async function toolsetsRoutes (app: FastifyInstance): Promise<void> {
  const { gateway } = app
  app.get('/toolsets', {
    schema: {
      summary: 'Toolsets with resolved members, includes, aliases, availability',
      tags: ['operators'],
      response: { 200: Type.Object({ toolsets: Type.Array(ToolsetView, { description: 'Sorted by name.' }) }, { description: 'Every toolset the caller may see.' }) }
    }
  }, async (request) => {
    const snapshot = gateway.registry.snapshot()
    const allowed = allowedTools(gateway, request.principal)
    const own = new Set(request.principal?.toolsets ?? [])
    const infos = gateway.catalog.describe(snapshot)
      .map((info) => ({ ...info, tools: allowed === undefined ? info.tools : info.tools.filter((t) => allowed.has(t)) }))
      .filter((info) => allowed === undefined || info.tools.length > 0 || own.has(info.name))
    const servers = new Map(gateway.mcp.states().map((status) => [status.toolset, status]))
    // A server that has no tools right now (down since start, disabled) still gets its row, so an
    // operator sees it and why; a key limited to toolsets does not see other servers.
    if (allowed === undefined) {
      const listed = new Set(infos.map((info) => info.name))
      for (const status of servers.values()) {
        if (listed.has(status.toolset)) continue
        infos.push({ name: status.toolset, kind: 'registry', description: `Tools of MCP server "${status.server}".`, tools: [], includes: [], aliases: [], missingIncludes: [] })
      }
      infos.sort((a, b) => (a.name < b.name ? -1 : 1))
    }
    const verdicts = await gateway.availability.tools(infos.flatMap((info) => info.tools.map((t) => snapshot.tools.get(t)!)))
    return {
      toolsets: infos.map((info) => {
        const verdict = combine(info.name, info.tools.map((t) => snapshot.tools.get(t)!), verdicts)
        const available = verdict.available
        const server = servers.get(info.name)
        return {
          ...(server === undefined ? {} : { mcpServer: server }),
          name: info.name,
          kind: info.kind,
          description: info.description,
          tools: info.tools,
          includes: info.includes,
          aliases: info.aliases,
          available,
          reason: available
            ? null
            : server !== undefined && server.state !== 'connected'
              ? `MCP server "${server.server}" is ${server.state}${server.lastError ? `: ${server.lastError}` : ''}`
              : info.tools.length === 0 ? 'no registered tools' : verdict.reason ?? null
        }
      })
    }
  })
}
