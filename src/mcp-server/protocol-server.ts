// The MCP server of one session, one stateless request or one stdio connection: the SDK's
// low-level Server with tools/list and tools/call answered per caller and per request, from the
// caller behind the message (its key's scope, its toolset selection, its logger, what cancels it).
// Nothing is registered in advance: the registry is read when a client asks, as /definitions reads it.
import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult, type ServerContext, type Tool } from '@modelcontextprotocol/server'
import type { FastifyInstance } from 'fastify'
import type { Caller } from '../access/caller.ts'
import { variantOf } from '../definitions/formats/formats.ts'
import type { ToolProgress } from '../registry/types.ts'
import type { TraceParent } from '../tracing/tracer.ts'
import { GATEWAY_IDENTITY } from '../version.ts'
import { callResultOf } from './call-result.ts'
import { pageOf, type ToolPage } from './tool-pages.ts'

/** Finds the caller behind the message a handler answers. */
export type CallerOf = (ctx: ServerContext) => Caller

// The listing is GET /definitions?format=mcp for the same caller: one derivation, one cache.
const MCP_FORMAT = variantOf('mcp', undefined)

async function listTools (app: FastifyInstance, caller: Caller, cursor: string | undefined): Promise<ToolPage> {
  const { gateway } = app
  const { selection, scope } = caller
  const payload = await gateway.definitions.buildVariant(selection.cacheKey, () => scope.select(selection.toolsets, selection.disabled), MCP_FORMAT)
  // The mcp format holds MCP Tool objects only (formatTool's `mcp` case is mcpToolOf).
  return pageOf(payload.tools as readonly Tool[], cursor, gateway.config.mcp.pageSize)
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

/**
 * The context an MCP client put in the request's `_meta` (`traceparent`, `tracestate`: SEP-414),
 * the client's own span for this call; the only one a stdio client can send.
 */
function traceOf (app: FastifyInstance, ctx: ServerContext): TraceParent | undefined {
  const meta = ctx.mcpReq._meta
  return app.tracer === undefined || meta === undefined ? undefined : app.tracer.parentFrom(meta)
}

async function callTool (app: FastifyInstance, caller: Caller, params: { name: string, arguments?: unknown }, ctx: ServerContext): Promise<CallToolResult> {
  // /mcp refuses every request while draining; a stdio connection stays open, so its calls are refused here.
  if (app.lifecycle.draining) throw new ProtocolError(ProtocolErrorCode.InternalError, 'the gateway is shutting down; no new tool calls are accepted')
  const { selection, scope } = caller
  // Only a selection narrows what may be called: without one, the key's scope alone decides.
  const selected = selection.toolsets === undefined && selection.disabled === undefined
    ? undefined
    : new Set(scope.select(selection.toolsets, selection.disabled))
  const outcome = await app.calls.run(caller, params.name, params.arguments ?? {}, {
    signal: ctx.mcpReq.signal,
    onProgress: progressSender(ctx),
    visible: selected === undefined ? undefined : (tool) => selected.has(tool),
    trace: traceOf(app, ctx)
  })
  return callResultOf(outcome)
}

export function createProtocolServer (app: FastifyInstance, callerOf: CallerOf): Server {
  const server = new Server({ ...GATEWAY_IDENTITY }, {
    capabilities: { tools: { listChanged: true } },
    instructions: 'The tools of a tool gateway; each call runs with the gateway\'s validation, deadline and result cap.'
  })
  server.setRequestHandler('tools/list', async (request, ctx) => await listTools(app, callerOf(ctx), request.params?.cursor))
  server.setRequestHandler('tools/call', async (request, ctx) => await callTool(app, callerOf(ctx), request.params, ctx))
  return server
}
