// The /mcp endpoint behind the route: each HTTP request (already authenticated and scoped by the
// edge's hooks) goes to its session's transport, opens a session (an `initialize` while there is
// room), or is served statelessly by a server made for it alone. Handlers find the Fastify request
// behind a message, and so its caller, through the web Request handed to the SDK's transport.
import { randomUUID } from 'node:crypto'
import { WebStandardStreamableHTTPServerTransport, isInitializeRequest, type ServerContext } from '@modelcontextprotocol/server'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Caller } from '../access/caller.ts'
import { callerOfRequest } from './http-caller.ts'
import { callerOf } from '../http/in-flight.ts'
import { numericHeader } from '../http/query.ts'
import { onToolsChanged } from './list-changed.ts'
import { createProtocolServer } from './protocol-server.ts'
import { SessionStore, type McpSession } from './sessions.ts'

/** A JSON-RPC error answered by the endpoint itself, as the SDK's transport answers its own. */
export function jsonRpcError (status: number, code: number, message: string, headers?: Record<string, string>): Response {
  return Response.json({ jsonrpc: '2.0', id: null, error: { code, message } }, { status, headers })
}

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

/** The Fastify request as a web Request for the transport; the body was parsed (and size-capped) already. */
function webRequestOf (request: FastifyRequest): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item)
  }
  return new Request(`http://${request.host}${request.url}`, { method: request.method, headers })
}

/** Seconds a caller at its stream cap is told to wait: streams end when their clients go. */
const STREAM_RETRY_AFTER_S = 30

function ownerOf (request: FastifyRequest): string {
  return request.principal?.name ?? ''
}

export class McpEndpoint {
  readonly #app: FastifyInstance
  readonly #sessions: SessionStore
  readonly #requests = new WeakMap<Request, FastifyRequest>()
  readonly #toolsChanged: { stop: () => void }
  readonly #stopRevoking: () => void

  constructor (app: FastifyInstance) {
    const { maxSessions, maxSessionsPerKey, maxStreamsPerKey, sessionIdleMs, sessionMaxMs, streamMaxMs } = app.gateway.config.mcp
    this.#app = app
    this.#sessions = new SessionStore({
      maxSessions, maxSessionsPerKey, maxStreamsPerKey, idleMs: sessionIdleMs, maxLifetimeMs: sessionMaxMs, streamMaxMs, logger: app.log
    })
    this.#toolsChanged = onToolsChanged(app.gateway.registry, () => { this.#sessions.toolsChanged() })
    const { authenticator } = app
    this.#stopRevoking = authenticator.onKeysReplaced(() => { this.#sessions.closeRevoked((principal) => authenticator.isCurrent(principal)) })
  }

  async handle (request: FastifyRequest, reply: FastifyReply): Promise<Response> {
    const badHeader = callHeaderProblem(request)
    if (badHeader !== undefined) return jsonRpcError(400, -32600, badHeader)
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
    if (request.method === 'GET') return jsonRpcError(405, -32000, 'GET /mcp streams a session\'s notifications: send the Mcp-Session-Id header of a session (initialize opens one)', { allow: 'POST, DELETE' })
    if (request.method === 'DELETE') return jsonRpcError(400, -32000, 'DELETE /mcp ends a session: send the Mcp-Session-Id header of the session to end')
    if (isInitializeRequest(request.body) && this.#sessions.hasRoom(callerOf(request))) return await this.#open(web, request)
    return await this.#stateless(web, request, reply)
  }

  async close (): Promise<void> {
    this.#toolsChanged.stop()
    this.#stopRevoking()
    await this.#sessions.closeAll()
  }

  #callerOf = (ctx: ServerContext): Caller => {
    const request = ctx.http?.req === undefined ? undefined : this.#requests.get(ctx.http.req)
    // Every message reaches a handler through handleRequest, which always passes its Request.
    if (request === undefined) throw new Error('MCP message without the HTTP request that carried it')
    return callerOfRequest(this.#app, request)
  }

  async #open (web: Request, request: FastifyRequest): Promise<Response> {
    const id = randomUUID()
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessionclosed: () => { this.#sessions.forget(id) }
    })
    const server = createProtocolServer(this.#app, this.#callerOf)
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
    const server = createProtocolServer(this.#app, this.#callerOf)
    await server.connect(transport)
    // The answer may stream (progress before the result): the server lives until it is sent.
    reply.raw.once('close', () => { server.close().catch(() => {}) })
    return await transport.handleRequest(web, { parsedBody: request.body })
  }
}
