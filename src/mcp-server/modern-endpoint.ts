// 2026-07-28 requests at /mcp: stateless, each one complete in itself (its envelope says who asks
// and in which revision), so any replica answers any of them. server/discover, tools/list and
// tools/call are answered by hot-methods.ts; everything else (subscriptions/listen, methods the
// gateway does not serve, every refusal of the protocol's validation) by the SDK's own handler for
// the revision, built on the same protocol server as the 2025 sessions. A listen stream counts
// against its caller's streams and is told of this replica's catalogue changes.
import {
  createMcpHandler, type InboundModernRoute, type InboundLadderRejection, type McpHttpHandler
} from '@modelcontextprotocol/server'
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../http/in-flight.ts'
import { callerOfRequest } from './http-caller.ts'
import { HotMethods, hotRequestOf, type HotRequest } from './hot-methods.ts'
import { onToolsChanged } from './list-changed.ts'
import { HTTP_MODERN_CAPABILITIES, SERVER_INFO_META, type CacheHints } from './modern-revision.ts'
import { protocolErrorOf } from './questions.ts'
import { jsonRpcErrorOf } from './rpc-errors.ts'
import { answerTask, taskRequestOf, type TaskRequest } from './tasks.ts'
import { createProtocolServer, type CallerOf } from './protocol-server.ts'
import type { StreamQuota } from './stream-quota.ts'
import { jsonRpcError, webRequestOf } from './web-request.ts'

/** Seconds a caller at its stream cap is told to wait: streams end when their clients go. */
const STREAM_RETRY_AFTER_S = 30

export interface ModernEndpointOptions {
  hints: CacheHints
  /** Finds the Fastify request behind a web Request handed to the SDK. */
  callerOf: CallerOf
  /** Records which Fastify request a web Request stands for. */
  remember: (web: Request, request: FastifyRequest) => void
  streams: StreamQuota
}

export class ModernEndpoint {
  readonly #app: FastifyInstance
  readonly #sdk: McpHttpHandler
  readonly #hot: HotMethods
  readonly #options: ModernEndpointOptions
  readonly #toolsChanged: { stop: () => void }

  constructor (app: FastifyInstance, options: ModernEndpointOptions) {
    this.#app = app
    this.#options = options
    const { hints } = options
    this.#hot = new HotMethods(app, hints)
    this.#sdk = createMcpHandler(() => createProtocolServer(app, options.callerOf, hints, HTTP_MODERN_CAPABILITIES), {
      legacy: 'reject',
      // The per-caller stream cap (mcp.maxStreamsPerKey) bounds them first; this is the SDK's own backstop.
      maxSubscriptions: 100_000,
      onerror: (err) => { app.log.debug({ err }, 'MCP request refused or failed (2026-07-28)') }
    })
    this.#toolsChanged = onToolsChanged(app.gateway.registry, () => { this.#sdk.notify.toolsChanged() })
  }

  async handle (request: FastifyRequest, reply: FastifyReply, route: InboundModernRoute | InboundLadderRejection): Promise<FastifyReply> {
    if (route.kind === 'modern' && route.messageKind === 'request') {
      const hot = hotRequestOf(request, route.message, route.classification.revision)
      if (hot !== undefined) return await this.answerHot(request, reply, hot)
      if (route.message.method === 'subscriptions/listen') return await this.#listen(request, reply, route.message.id)
      const task = taskRequestOf(route.message)
      if (task !== undefined) return await this.#task(request, reply, route.message.id, task)
    }
    return await this.#bySdk(request, reply)
  }

  /** A request already known to be one of the hot three, well formed (plain-hot-request.ts). */
  async answerHot (request: FastifyRequest, reply: FastifyReply, hot: HotRequest): Promise<FastifyReply> {
    return await this.#hot.answer(hot, () => callerOfRequest(this.#app, request), reply)
  }

  /** Ends the listen streams (each told so, as the protocol asks of a server that ends them) and what the SDK still serves. */
  async close (): Promise<void> {
    this.#toolsChanged.stop()
    await this.#sdk.close()
  }

  async #bySdk (request: FastifyRequest, reply: FastifyReply, signal?: AbortSignal): Promise<FastifyReply> {
    const web = webRequestOf(request, signal)
    this.#options.remember(web, request)
    return await reply.send(await this.#sdk.fetch(web, { parsedBody: request.body }))
  }

  /** tasks/get, tasks/update, tasks/cancel (the Tasks extension): the caller's own tasks only. */
  async #task (request: FastifyRequest, reply: FastifyReply, id: string | number, task: TaskRequest | Error): Promise<FastifyReply> {
    let message: Record<string, unknown>
    try {
      if (task instanceof Error) throw task
      const result = await answerTask(this.#app, callerOfRequest(this.#app, request), task)
      if (result === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `no task ${task.taskId} of this client: it is unknown, has expired (calls.ttlMs), or was made with other credentials`)
      message = { jsonrpc: '2.0', id, result: { resultType: 'complete', ...result, _meta: SERVER_INFO_META } }
    } catch (error) {
      message = { jsonrpc: '2.0', id, error: jsonRpcErrorOf(protocolErrorOf(error)) }
    }
    return await reply.type('application/json').send(JSON.stringify(message))
  }

  async #listen (request: FastifyRequest, reply: FastifyReply, id: string | number): Promise<FastifyReply> {
    // Open by design: counted against the caller's streams, no longer as work in flight.
    request.leaveInFlight?.()
    const ended = new AbortController()
    const refused = this.#options.streams.open(callerOf(request), request.principal, reply.raw, () => { ended.abort() })
    if (refused !== undefined) return await reply.send(jsonRpcError(429, -32000, refused, { 'retry-after': String(STREAM_RETRY_AFTER_S) }, id))
    reply.raw.once('close', () => { ended.abort() })
    return await this.#bySdk(request, reply, ended.signal)
  }
}
