// The /mcp endpoint behind the route, for every revision served. Each HTTP request (already
// authenticated and scoped by the edge's hooks) is classified by the SDK's own rules: a 2026-07-28
// request (one carrying the per-request envelope) goes to the stateless modern endpoint; a 2025 one
// goes to its session's transport, opens a session (an `initialize` while there is room), or is
// served statelessly by a server made for it alone. Handlers find the Fastify request behind a
// message, and so its caller, through the web Request handed to the SDK.
import { randomUUID } from 'node:crypto'
import {
  WebStandardStreamableHTTPServerTransport, classifyInboundRequest, isInitializeRequest,
  type InboundClassificationOutcome, type ServerContext
} from '@modelcontextprotocol/server'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Caller } from '../access/caller.ts'
import { callerOfRequest } from './http-caller.ts'
import { callerOf } from '../http/in-flight.ts'
import { numericHeader } from '../http/query.ts'
import { onToolsChanged } from './list-changed.ts'
import { ModernEndpoint } from './modern-endpoint.ts'
import { plainHotRequest } from './plain-hot-request.ts'
import { cacheHintsFor, type CacheHints } from './modern-revision.ts'
import { createProtocolServer } from './protocol-server.ts'
import { SessionStore, type McpSession } from './sessions.ts'
import { StreamQuota } from './stream-quota.ts'
import { jsonRpcError, webRequestOf } from './web-request.ts'

/**
 * Why a call header of the request cannot be used (X-Tool-Timeout-Ms, X-Max-Result-Chars), checked
 * before the message reaches the SDK: a client's bad header is its mistake, answered 400 naming the
 * header, not an internal error inside an answer 200.
 */
function callHeaderProblem (request: FastifyRequest): string | undefined {
  try {
    numericHeader(request.headers, 'x-tool-timeout-ms')
    numericHeader(request.headers, 'x-max-result-chars')
    return undefined
  } catch (error) {
    return (error as Error).message
  }
}

function header (request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name]
  return typeof value === 'string' ? value : undefined
}

/** Which revision's rules a request falls under, by the SDK's classifier (the same one its handlers use). */
function classify (request: FastifyRequest): InboundClassificationOutcome {
  return classifyInboundRequest({
    httpMethod: request.method,
    protocolVersionHeader: header(request, 'mcp-protocol-version'),
    mcpMethodHeader: header(request, 'mcp-method'),
    mcpNameHeader: header(request, 'mcp-name'),
    body: request.body
  })
}

/** Seconds a caller at its stream cap is told to wait: streams end when their clients go. */
const STREAM_RETRY_AFTER_S = 30

function ownerOf (request: FastifyRequest): string {
  return request.principal?.name ?? ''
}

export class McpEndpoint {
  readonly #app: FastifyInstance
  readonly #sessions: SessionStore
  readonly #streams: StreamQuota
  readonly #modern: ModernEndpoint
  readonly #hints: CacheHints
  readonly #requests = new WeakMap<Request, FastifyRequest>()
  readonly #toolsChanged: { stop: () => void }
  readonly #stopRevoking: () => void

  constructor (app: FastifyInstance) {
    const { maxSessions, maxSessionsPerKey, maxStreamsPerKey, sessionIdleMs, sessionMaxMs, streamMaxMs } = app.gateway.config.mcp
    this.#app = app
    this.#hints = cacheHintsFor(app.gateway.config.availability.ttlMs, app.authenticator.enabled)
    this.#streams = new StreamQuota({ maxPerCaller: maxStreamsPerKey, maxLifetimeMs: streamMaxMs })
    this.#sessions = new SessionStore({
      maxSessions, maxSessionsPerKey, idleMs: sessionIdleMs, maxLifetimeMs: sessionMaxMs, streams: this.#streams, logger: app.log
    })
    this.#modern = new ModernEndpoint(app, {
      hints: this.#hints,
      callerOf: this.#callerOf,
      remember: (web, request) => { this.#requests.set(web, request) },
      streams: this.#streams
    })
    this.#toolsChanged = onToolsChanged(app.gateway.registry, () => { this.#sessions.toolsChanged() })
    const { authenticator } = app
    this.#stopRevoking = authenticator.onKeysReplaced(() => {
      const stillValid = (principal: Parameters<typeof authenticator.isCurrent>[0]): boolean => authenticator.isCurrent(principal)
      this.#sessions.closeRevoked(stillValid)
      this.#streams.endRevoked(stillValid)
    })
  }

  async handle (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const badHeader = callHeaderProblem(request)
    if (badHeader !== undefined) return await reply.send(jsonRpcError(400, -32600, badHeader))
    if (request.method === 'POST') {
      const hot = plainHotRequest(request.headers, request.body)
      if (hot !== undefined) return await this.#modern.answerHot(request, reply, hot)
      const route = classify(request)
      if (route.kind !== 'legacy') return await this.#modern.handle(request, reply, route)
    }
    return await reply.send(await this.#legacy(request, reply))
  }

  async close (): Promise<void> {
    this.#toolsChanged.stop()
    this.#stopRevoking()
    await Promise.all([this.#sessions.closeAll(), this.#modern.close()])
  }

  #callerOf = (ctx: ServerContext): Caller => {
    const request = ctx.http?.req === undefined ? undefined : this.#requests.get(ctx.http.req)
    // Every message reaches a handler through the SDK's handlers, which always pass its Request.
    if (request === undefined) throw new Error('MCP message without the HTTP request that carried it')
    return callerOfRequest(this.#app, request)
  }

  /** A 2025 request: its session's, one that opens a session, or one served statelessly. */
  async #legacy (request: FastifyRequest, reply: FastifyReply): Promise<Response> {
    const web = webRequestOf(request)
    this.#requests.set(web, request)
    const sessionId = request.headers['mcp-session-id']
    if (typeof sessionId === 'string') {
      const session = this.#sessions.get(sessionId, ownerOf(request))
      // Unknown, closed, or another key's: the same answer, so ids cannot be probed.
      if (session === undefined) return jsonRpcError(404, -32001, 'Session not found: it ended or never existed; send initialize again without Mcp-Session-Id')
      if (request.method === 'GET') {
        const refused = this.#sessions.openStream(session, reply.raw)
        if (refused !== undefined) return jsonRpcError(429, -32000, refused, { 'retry-after': String(STREAM_RETRY_AFTER_S) })
      }
      this.#sessions.busyUntilClosed(session, reply.raw)
      return await session.transport.handleRequest(web, { parsedBody: request.body })
    }
    // Without a session there is no stream to open (MCP: 405 tells the client to go on without
    // one) and nothing to end.
    if (request.method === 'GET') return jsonRpcError(405, -32000, 'GET /mcp streams a session\'s notifications: send the Mcp-Session-Id header of a session (initialize opens one); 2026-07-28 clients send subscriptions/listen instead', { allow: 'POST, DELETE' })
    if (request.method === 'DELETE') return jsonRpcError(400, -32000, 'DELETE /mcp ends a session: send the Mcp-Session-Id header of the session to end')
    if (isInitializeRequest(request.body) && this.#sessions.hasRoom(callerOf(request))) return await this.#open(web, request)
    return await this.#stateless(web, request, reply)
  }

  async #open (web: Request, request: FastifyRequest): Promise<Response> {
    const id = randomUUID()
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessionclosed: () => { this.#sessions.forget(id) }
    })
    const server = createProtocolServer(this.#app, this.#callerOf, this.#hints)
    const now = Date.now()
    const session: McpSession = {
      id, owner: ownerOf(request), principal: request.principal, caller: callerOf(request), server, transport, openedAt: now, lastSeen: now, busy: 0
    }
    transport.onclose = () => { this.#sessions.forget(id) }
    await server.connect(transport)
    this.#sessions.add(session)
    const response = await transport.handleRequest(web, { parsedBody: request.body })
    // A refused initialize (bad version, bad headers) leaves no session behind.
    if (transport.sessionId === undefined) await this.#sessions.close(session)
    else request.log.info({ mcpSession: id, sessions: this.#sessions.size }, 'MCP session opened')
    return response
  }

  async #stateless (web: Request, request: FastifyRequest, reply: FastifyReply): Promise<Response> {
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    const server = createProtocolServer(this.#app, this.#callerOf, this.#hints)
    await server.connect(transport)
    // The answer may stream (progress before the result): the server lives until it is sent.
    reply.raw.once('close', () => { server.close().catch(() => {}) })
    return await transport.handleRequest(web, { parsedBody: request.body })
  }
}
