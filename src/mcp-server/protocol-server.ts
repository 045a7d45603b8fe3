// The MCP server of one session, one stateless request or one stdio connection: the SDK's
// low-level Server with tools/list and tools/call answered per caller and per request, from the
// caller behind the message (its key's scope, its toolset selection, its logger, what cancels it).
// Nothing is registered in advance: the registry is read when a client asks, as /definitions reads it.
// The same answers serve every revision; the SDK adds what 2026-07-28 asks of them (resultType,
// the cache hints given here, serverInfo in _meta). hot-methods.ts answers the three busiest
// 2026-07-28 requests without the SDK and must answer them exactly as this server does.
import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult, type ServerContext, type Tool } from '@modelcontextprotocol/server'
import type { FastifyInstance } from 'fastify'
import type { Caller } from '../access/caller.ts'
import { variantOf } from '../definitions/formats/formats.ts'
import type { ToolProgress } from '../registry/types.ts'
import type { TraceParent } from '../tracing/tracer.ts'
import { GATEWAY_IDENTITY } from '../shared/version.ts'
import { callResultOf } from './call-result.ts'
import { SERVER_CAPABILITIES, SERVER_INSTRUCTIONS, type CacheHints } from './modern-revision.ts'
import { pageOf, type ToolPage } from './tool-pages.ts'

/** Finds the caller behind the message a handler answers. */
export type CallerOf = (ctx: ServerContext) => Caller

// The listing is GET /definitions?format=mcp for the same caller: one derivation, one cache.
const MCP_FORMAT = variantOf('mcp', undefined)

/** The caller's tools in the MCP format: a cached payload, the same object while nothing changed. */
export async function mcpToolsOf (app: FastifyInstance, caller: Caller): Promise<{ tools: readonly Tool[] }> {
  const { selection, scope } = caller
  const payload = await app.gateway.definitions.buildVariant(selection.cacheKey, () => scope.select(selection.toolsets, selection.disabled), MCP_FORMAT)
  // The mcp format holds MCP Tool objects only (formatTool's `mcp` case is mcpToolOf).
  return payload as { tools: readonly Tool[] }
}

async function listTools (app: FastifyInstance, caller: Caller, cursor: string | undefined): Promise<ToolPage> {
  return pageOf((await mcpToolsOf(app, caller)).tools, cursor, app.gateway.config.mcp.pageSize)
}

/**
 * Sends the handler's reports as notifications/progress for `token`, only growing values, as MCP
 * requires; undefined when the client asked for none.
 */
export function progressSender (token: string | number | undefined, send: (params: Record<string, unknown>) => void): ((update: ToolProgress) => void) | undefined {
  if (token === undefined) return undefined
  let last = -Infinity
  return (update) => {
    if (!Number.isFinite(update.progress) || update.progress <= last) return
    last = update.progress
    const total = Number.isFinite(update.total) ? update.total : undefined
    const message = typeof update.message === 'string' ? update.message : undefined
    send({ progressToken: token, progress: update.progress, total, message })
  }
}

/**
 * The context an MCP client put in the request's `_meta` (`traceparent`, `tracestate`: SEP-414),
 * the client's own span for this call; the only one a stdio client can send.
 */
export function traceOf (app: FastifyInstance, meta: Readonly<Record<string, unknown>> | undefined): TraceParent | undefined {
  return app.tracer === undefined || meta === undefined ? undefined : app.tracer.parentFrom(meta)
}

export interface ToolCall {
  name: string
  arguments?: unknown
  signal?: AbortSignal
  onProgress?: (update: ToolProgress) => void
  trace?: TraceParent
}

/** Runs one tools/call for `caller`: the tool's outcome as an MCP result, or the protocol's error for a tool it cannot see. */
export async function callTool (app: FastifyInstance, caller: Caller, call: ToolCall): Promise<CallToolResult> {
  // /mcp refuses every request while draining; a stdio connection stays open, so its calls are refused here.
  if (app.lifecycle.draining) throw new ProtocolError(ProtocolErrorCode.InternalError, 'the gateway is shutting down; no new tool calls are accepted')
  const { selection, scope } = caller
  // Only a selection narrows what may be called: without one, the key's scope alone decides.
  const selected = selection.toolsets === undefined && selection.disabled === undefined
    ? undefined
    : new Set(scope.select(selection.toolsets, selection.disabled))
  const answer = await app.calls.run(caller, call.name, call.arguments ?? {}, {
    signal: call.signal,
    onProgress: call.onProgress,
    visible: selected === undefined ? undefined : (tool) => selected.has(tool),
    trace: call.trace
  })
  return callResultOf(answer)
}

export function createProtocolServer (app: FastifyInstance, callerOf: CallerOf, cacheHints: CacheHints): Server {
  const server = new Server({ ...GATEWAY_IDENTITY }, {
    capabilities: SERVER_CAPABILITIES,
    instructions: SERVER_INSTRUCTIONS,
    // Used by 2026-07-28 answers only; 2025 answers carry no cache fields.
    cacheHints: { 'tools/list': cacheHints.list, 'server/discover': cacheHints.discover }
  })
  server.setRequestHandler('tools/list', async (request, ctx) => await listTools(app, callerOf(ctx), request.params?.cursor))
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const meta = ctx.mcpReq._meta
    return await callTool(app, callerOf(ctx), {
      name: request.params.name,
      arguments: request.params.arguments,
      signal: ctx.mcpReq.signal,
      onProgress: progressSender(meta?.progressToken, (params) => {
        ctx.mcpReq.notify({ method: 'notifications/progress', params: params as never })
          .catch(() => {}) // the client went away; the call's own cancellation handles that
      }),
      trace: traceOf(app, meta)
    })
  })
  return server
}
