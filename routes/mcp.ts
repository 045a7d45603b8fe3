// /mcp: the gateway's tools for MCP clients over Streamable HTTP, in revision 2026-07-28 (stateless
// POSTs) and the 2025 ones (POST messages, GET the session's notification stream, DELETE to end a
// session). Authentication, rate limits, key scope, body limit and draining run before it as for
// every route; here only the Origin check (DNS rebinding) is added.
// The protocol lives in src/mcp-server/; it and the MCP SDK load on the first request that gets
// past the edge's checks, so a gateway nobody reaches over MCP never pays for them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { OriginNotAllowedError } from '../src/shared/errors.ts'
import { commaList, selectionList } from '../src/http/query.ts'
import { ToolsetList } from '../src/http/schemas.ts'
import type { McpEndpoint } from '../src/mcp-server/endpoint.ts'
import { originPolicy } from '../src/mcp-server/origin.ts'

const Query = Type.Object({
  toolsets: ToolsetList('Comma-separated toolsets to serve, as for /definitions; absent = every toolset the caller may use.'),
  disabled: ToolsetList('Comma-separated toolsets to leave out (wins over toolsets).')
}, { additionalProperties: false })

const mcpRoutes: FastifyPluginAsyncTypebox = async (app) => {
  let endpoint: Promise<McpEndpoint> | undefined
  const endpointOf = (): Promise<McpEndpoint> => {
    endpoint ??= import('../src/mcp-server/endpoint.ts').then(({ McpEndpoint }) => new McpEndpoint(app))
    return endpoint
  }
  const originAllowed = originPolicy(app.gateway.config.mcp.allowedOrigins, app.gateway.config.host)
  // Before the server stops listening: open notification streams would otherwise hold it open.
  app.addHook('preClose', async () => { await (await endpoint)?.close() })

  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: '/mcp',
    config: { refusedWhileDraining: true, jsonRpc: true },
    schema: {
      summary: 'MCP over Streamable HTTP',
      description: 'The Model Context Protocol endpoint. Revision 2026-07-28, stateless (every request carries its `_meta` envelope and the Mcp-Method / Mcp-Name headers): server/discover, tools/list, tools/call, subscriptions/listen. Revisions 2025-06-18 and 2025-11-25, in sessions (Mcp-Session-Id): initialize, tools/list, tools/call, ping, GET for the session\'s notification stream, DELETE to end it. Bodies are JSON-RPC messages; answers are JSON-RPC over JSON or Server-Sent Events.',
      tags: ['mcp'],
      querystring: Query
    },
    onRequest: async (request) => {
      const origin = request.headers.origin
      if (originAllowed(origin)) return
      request.log.warn({ origin }, 'MCP request refused: origin not allowed')
      throw new OriginNotAllowedError(`Origin ${JSON.stringify(origin)} is not allowed on /mcp; add it to mcp.allowedOrigins (MCP_ALLOWED_ORIGINS)`)
    },
    // A selection naming nothing, or a toolset the caller cannot use, makes every request to this
    // URL wrong: refused here (400, naming the valid toolsets) so a client fails to connect with
    // the reason rather than later in tools/list.
    preHandler: async (request) => {
      request.scope.select(selectionList(request.query.toolsets, 'toolsets'), commaList(request.query.disabled))
    },
    handler: async (request, reply) => await (await endpointOf()).handle(request, reply)
  })
}

export default mcpRoutes
