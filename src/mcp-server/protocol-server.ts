// The MCP server of one session, one stateless request or one stdio connection: the SDK's
// low-level Server with tools/list and tools/call answered per caller and per request, from the
// caller behind the message (its key's scope, its toolset selection, its logger, what cancels it).
// Nothing is registered in advance: the registry is read when a client asks, as /definitions reads it.
// The same answers serve every revision; the SDK adds what 2026-07-28 asks of them (resultType,
// the cache hints given here, serverInfo in _meta). hot-methods.ts answers the three busiest
// 2026-07-28 requests without the SDK and must answer them exactly as this server does.
import { inputRequired, ProtocolError, ProtocolErrorCode, Server, type CallToolResult, type ClientCapabilities, type ServerCapabilities, type ServerContext, type Tool } from '@modelcontextprotocol/server'
import type { FastifyInstance } from 'fastify'
import type { Caller } from '../access/caller.ts'
import { variantOf } from '../definitions/formats/formats.ts'
import type { ToolProgress } from '../registry/types.ts'
import type { TraceParent } from '../tracing/tracer.ts'
import { GATEWAY_IDENTITY } from '../shared/version.ts'
import type { Asker } from '../calls/question-relay.ts'
import type { Dispatched } from '../dispatch/call/outcome.ts'
import { approveOverMcp } from './approvals.ts'
import { capabilitiesOf, protocolErrorOf, runAsking, type McpTurn } from './questions.ts'
import { startTask } from './tasks.ts'
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
  /** What the client declared it can answer (its request's, or its session's capabilities). */
  capabilities?: ClientCapabilities
  /** Set when the client goes on with a call that asked: its answers, and the state it was given. */
  inputResponses?: unknown
  requestState?: string
  /** The client declared the Tasks extension on this 2026-07-28 request: the call may become a task. */
  tasks?: boolean
}

/**
 * Runs one tools/call for `caller`: the tool's outcome as an MCP result, the questions its tool
 * asked (questions.ts), or a task handle when the client declared the Tasks extension and the call
 * has not ended within mcp.taskAfterMs (tasks.ts). Throws the protocol's error for a tool the
 * caller cannot see, and for a requestState that names no call of this caller.
 */
export async function callTool (app: FastifyInstance, caller: Caller, call: ToolCall): Promise<McpTurn> {
  // /mcp refuses every request while draining; a stdio connection stays open, so its calls are refused here.
  if (app.lifecycle.draining) throw new ProtocolError(ProtocolErrorCode.InternalError, 'the gateway is shutting down; no new tool calls are accepted')
  const { selection, scope } = caller
  // Only a selection narrows what may be called: without one, the key's scope alone decides.
  const selected = selection.toolsets === undefined && selection.disabled === undefined
    ? undefined
    : new Set(scope.select(selection.toolsets, selection.disabled))
  const run = async (signal: AbortSignal, ask: Asker, onProgress = call.onProgress): Promise<Dispatched> => await app.calls.run(caller, call.name, call.arguments ?? {}, {
    signal,
    onProgress,
    visible: selected === undefined ? undefined : (tool) => selected.has(tool),
    trace: call.trace,
    ask,
    approve: approveOverMcp(app, caller.principal ?? 'anonymous', ask),
    detachable: true
  })
  // Until it asks (or becomes a task), the call is its connection's and its message's, as any call.
  const connection = eitherSignal(caller.cancellation?.signal, call.signal)
  if (call.requestState === undefined && call.tasks === true) {
    try {
      return await startTask(app, caller, { ...call, signal: connection }, run)
    } catch (err) {
      throw protocolErrorOf(err)
    }
  }
  let turn: McpTurn | undefined
  try {
    turn = await runAsking(app, caller, { ...call, signal: connection, run })
  } catch (err) {
    throw protocolErrorOf(err)
  }
  if (turn === undefined) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'requestState names no call of this client: the call has ended and its answer expired (calls.ttlMs), it was made with other credentials, or the state was not one the gateway gave')
  }
  return turn
}

/** A signal that fires when either does. */
function eitherSignal (a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (a === undefined || b === undefined) return a ?? b
  return AbortSignal.any([a, b])
}

/** An MCP answer of a tools/call turn: the result, MCP's InputRequiredResult, or a CreateTaskResult. */
export function resultOfTurn (turn: McpTurn): Record<string, unknown> {
  switch (turn.kind) {
    case 'result':
      return turn.result
    case 'input_required':
      return { resultType: 'input_required', inputRequests: turn.inputRequests, requestState: turn.requestState }
    case 'task':
      return { ...turn.task, resultType: 'task' }
  }
}

/** `capabilities`: what the server says it serves (the HTTP 2026-07-28 side adds the Tasks extension). */
export function createProtocolServer (app: FastifyInstance, callerOf: CallerOf, cacheHints: CacheHints, capabilities: ServerCapabilities = SERVER_CAPABILITIES): Server {
  const server = new Server({ ...GATEWAY_IDENTITY }, {
    capabilities,
    instructions: SERVER_INSTRUCTIONS,
    // Used by 2026-07-28 answers only; 2025 answers carry no cache fields.
    cacheHints: { 'tools/list': cacheHints.list, 'server/discover': cacheHints.discover }
  })
  server.setRequestHandler('tools/list', async (request, ctx) => await listTools(app, callerOf(ctx), request.params?.cursor))
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const meta = ctx.mcpReq._meta
    const requestState = ctx.mcpReq.requestState()
    const turn = await callTool(app, callerOf(ctx), {
      name: request.params.name,
      arguments: request.params.arguments,
      signal: ctx.mcpReq.signal,
      onProgress: progressSender(meta?.progressToken, (params) => {
        ctx.mcpReq.notify({ method: 'notifications/progress', params: params as never })
          .catch(() => {}) // the client went away; the call's own cancellation handles that
      }),
      trace: traceOf(app, meta),
      // 2026-07-28: the request's envelope (the SDK lifts it out of _meta); 2025: the session's.
      capabilities: capabilitiesOf(ctx.mcpReq.envelope, server.getClientCapabilities()),
      inputResponses: ctx.mcpReq.inputResponses,
      requestState: typeof requestState === 'string' ? requestState : undefined
    })
    // A question goes back as MCP's input_required (the SDK sends a 2025 session elicitation/create
    // instead, and calls this handler again with the answers); a task handle only to 2026-07-28 clients.
    if (turn.kind === 'input_required') return inputRequired({ inputRequests: turn.inputRequests as never, requestState: turn.requestState })
    return resultOfTurn(turn) as CallToolResult
  })
  return server
}
