// The MCP server of one session (or of one stateless request): the SDK's low-level Server with
// tools/list and tools/call answered per caller and per request, from the HTTP request that carried
// the message (its key's scope, its toolset selection, its logger, its connection). Nothing is
// registered in advance: the registry is read when a client asks, as /definitions reads it.
import { Server, type CallToolResult, type ServerContext } from '@modelcontextprotocol/server'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { commaList, selectionList } from '../http/query.ts'
import type { ToolProgress } from '../registry/types.ts'
import { callResultOf } from './call-result.ts'
import { mcpToolOf, pageOf, type ToolPage } from './tool-listing.ts'
import type { Tool } from '@modelcontextprotocol/server'
import type { DefinitionsPayload } from '../definitions/definitions.ts'

export const SERVER_INFO = { name: 'tool-gateway', version: '1.0.0' }

/** Finds the Fastify request behind the message a handler answers. */
export type RequestOf = (ctx: ServerContext) => FastifyRequest

interface Selection { toolsets?: string[], disabled?: string[], key: string }

/** `/mcp?toolsets=file,web&disabled=terminal`, read as /definitions reads its query. */
function selectionOf (request: FastifyRequest): Selection {
  const query = request.query as { toolsets?: string, disabled?: string }
  return {
    toolsets: selectionList(query.toolsets, 'toolsets'),
    disabled: commaList(query.disabled),
    key: `${query.toolsets ?? ''}\n${query.disabled ?? ''}\n${request.scope.cacheKey}`
  }
}

// One MCP listing per definitions payload: payloads are shared and immutable, so is this.
const listings = new WeakMap<DefinitionsPayload, Tool[]>()

async function listTools (app: FastifyInstance, request: FastifyRequest, cursor: string | undefined): Promise<ToolPage> {
  const { gateway } = app
  const selection = selectionOf(request)
  const payload = await gateway.definitions.buildFor(selection.key, () => request.scope.select(selection.toolsets, selection.disabled))
  let tools = listings.get(payload)
  if (tools === undefined) {
    const entries = gateway.registry.snapshot().tools
    tools = payload.tools.map((definition) => mcpToolOf(definition, entries.get(definition.function.name)))
    listings.set(payload, tools)
  }
  return pageOf(tools, cursor, gateway.config.mcp.pageSize)
}

/** Sends the handler's reports as notifications/progress, only growing values, as MCP requires. */
function progressSender (ctx: ServerContext): ((update: ToolProgress) => void) | undefined {
  const token = ctx.mcpReq._meta?.progressToken
  if (token === undefined) return undefined
  let last = -Infinity
  return (update) => {
    if (!Number.isFinite(update.progress) || update.progress <= last) return
    last = update.progress
    const total = Number.isFinite(update.total) ? update.total : undefined
    const message = typeof update.message === 'string' ? update.message : undefined
    ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: update.progress, total, message } })
      .catch(() => {}) // the client went away; the call's own cancellation handles that
  }
}

async function callTool (app: FastifyInstance, request: FastifyRequest, params: { name: string, arguments?: unknown }, ctx: ServerContext): Promise<CallToolResult> {
  const selection = selectionOf(request)
  // Only a selection narrows what may be called: without one, the key's scope alone decides.
  const selected = selection.toolsets === undefined && selection.disabled === undefined
    ? undefined
    : new Set(request.scope.select(selection.toolsets, selection.disabled))
  const outcome = await app.calls.start(request, params.name, params.arguments ?? {}, undefined, {
    signal: ctx.mcpReq.signal,
    onProgress: progressSender(ctx),
    visible: selected === undefined ? undefined : (tool) => selected.has(tool)
  })
  return callResultOf(outcome)
}

export function createProtocolServer (app: FastifyInstance, requestOf: RequestOf): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: true } },
    instructions: 'The tools of a tool gateway; each call runs with the gateway\'s validation, deadline and result cap.'
  })
  server.setRequestHandler('tools/list', async (request, ctx) => await listTools(app, requestOf(ctx), request.params?.cursor))
  server.setRequestHandler('tools/call', async (request, ctx) => await callTool(app, requestOf(ctx), request.params, ctx))
  return server
}
