// A real MCP server over Streamable HTTP on 127.0.0.1 for tests: tools can be added and removed at
// runtime (each change notifies list_changed), and the server can be told to crash, to stop
// answering, or to come back. It records every JSON-RPC message it receives.
import { randomUUID } from 'node:crypto'
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import {
  McpServer, WebStandardStreamableHTTPServerTransport, fromJsonSchema, type CallToolResult, type RegisteredTool
} from '@modelcontextprotocol/server'
import { LoopbackHttp, sendWebResponse, webRequestOf } from './loopback-http.ts'

export interface TestTool {
  description?: string
  inputSchema?: Record<string, unknown>
  run: (args: Record<string, unknown>, ctx: TestToolContext) => CallToolResult | Promise<CallToolResult>
}

export interface TestToolContext {
  signal: AbortSignal
  requestId: string | number
  /** Sends notifications/progress for this call; resolves false when the caller asked for none. */
  progress: (progress: number, total?: number) => Promise<boolean>
}

interface Session {
  server: McpServer
  transport: WebStandardStreamableHTTPServerTransport
  registered: Map<string, RegisteredTool>
}

export interface ReceivedMessage {
  method?: string
  id?: string | number
  params?: Record<string, unknown>
}

export class TestMcpHttpServer {
  /** Every JSON-RPC message POSTed to the server, in order. */
  readonly received: ReceivedMessage[] = []
  /** Tool calls whose signal the server saw abort (it got notifications/cancelled). */
  readonly cancelled: Array<{ tool: string, requestId: string | number }> = []
  /** The headers of the HTTP request that carried each message of `received`, in the same order. */
  readonly receivedHeaders: IncomingHttpHeaders[] = []
  /** Header values of the latest request, by lower-case name. */
  lastHeaders: Record<string, string | string[] | undefined> = {}
  frozen = false
  /**
   * Answers a tools/call itself, bypassing the SDK server, when it returns true: for answers a real
   * server would never send (too big, compressed bombs, another request's id). Its tools are still
   * listed from `tools`.
   */
  rawAnswer: ((message: ReceivedMessage, res: ServerResponse) => boolean | Promise<boolean>) | undefined
  #tools = new Map<string, TestTool>()
  #sessions = new Map<string, Session>()
  #pending = new Set<Session>()
  #http: LoopbackHttp | undefined
  #port = 0

  /** `port`: 0 = any free one; a given one lets a test put another server where this one was. */
  constructor (tools: Record<string, TestTool> = {}, port = 0) {
    for (const [name, tool] of Object.entries(tools)) this.#tools.set(name, tool)
    this.#port = port
  }

  get url (): string {
    return `http://127.0.0.1:${this.#port}/mcp`
  }

  /** Requests received with this method (and, for tools/call, this tool name). */
  count (method: string, tool?: string): number {
    return this.received.filter((m) => m.method === method && (tool === undefined || m.params?.name === tool)).length
  }

  async start (): Promise<void> {
    // On the port it had before a crash, when it had one.
    this.#http = await LoopbackHttp.listen(async (req, res) => { await this.#handle(req, res) }, this.#port)
    this.#port = this.#http.port
  }

  addTool (name: string, tool: TestTool): void {
    this.#tools.set(name, tool)
    // Each live session learns it; McpServer sends notifications/tools/list_changed itself.
    for (const session of this.#sessions.values()) this.#register(session, name, tool)
  }

  removeTool (name: string): void {
    this.#tools.delete(name)
    for (const session of this.#sessions.values()) {
      session.registered.get(name)?.remove()
      session.registered.delete(name)
    }
  }

  /** Changes a tool's description in place (one list_changed). */
  updateTool (name: string, description: string): void {
    const tool = this.#tools.get(name)
    if (tool) this.#tools.set(name, { ...tool, description })
    for (const session of this.#sessions.values()) session.registered.get(name)?.update({ description })
  }

  /** Gone at once: sessions closed, listener closed, every socket destroyed (clients see ECONNREFUSED / resets). */
  async crash (): Promise<void> {
    const sessions = [...this.#sessions.values(), ...this.#pending]
    this.#sessions.clear()
    this.#pending.clear()
    const http = this.#http
    this.#http = undefined
    const closed = http?.close()
    await Promise.allSettled(sessions.map((s) => s.server.close()))
    await closed
  }

  /** Back on the same port, with the same tools, no sessions. */
  async restart (): Promise<void> {
    await this.start()
  }

  close (): Promise<void> {
    return this.crash()
  }

  #register (session: Session, name: string, tool: TestTool): void {
    const registered = session.server.registerTool(name, {
      description: tool.description,
      inputSchema: fromJsonSchema((tool.inputSchema ?? { type: 'object', properties: {} }) as never)
    }, async (args: unknown, ctx) => {
      const signal = ctx.mcpReq.signal
      signal.addEventListener('abort', () => this.cancelled.push({ tool: name, requestId: ctx.mcpReq.id }), { once: true })
      const progressToken = ctx.mcpReq._meta?.progressToken
      const progress = async (value: number, total?: number): Promise<boolean> => {
        if (progressToken === undefined) return false
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: value, total } })
        return true
      }
      return tool.run(args as Record<string, unknown>, { signal, requestId: ctx.mcpReq.id, progress })
    })
    session.registered.set(name, registered)
  }

  #newSession (): Session {
    const server = new McpServer({ name: 'test-http-server', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } })
    const session: Session = {
      server,
      registered: new Map(),
      transport: new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          this.#pending.delete(session)
          this.#sessions.set(id, session)
        },
        onsessionclosed: (id) => { this.#sessions.delete(id) }
      })
    }
    for (const [name, tool] of this.#tools) this.#register(session, name, tool)
    this.#pending.add(session)
    return session
  }

  async #handle (req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Frozen: the request is held open and never answered, like a wedged server.
    if (this.frozen) return
    this.lastHeaders = req.headers
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    let body: unknown
    if (text !== '') {
      try {
        body = JSON.parse(text)
      } catch {
        body = undefined
      }
      for (const message of Array.isArray(body) ? body : [body]) {
        if (typeof message !== 'object' || message === null) continue
        this.received.push(message as ReceivedMessage)
        this.receivedHeaders.push(req.headers)
      }
    }
    const message = body as ReceivedMessage | undefined
    if (this.rawAnswer !== undefined && message?.method === 'tools/call' && await this.rawAnswer(message, res)) return
    const sessionId = req.headers['mcp-session-id']
    let session = typeof sessionId === 'string' ? this.#sessions.get(sessionId) : undefined
    if (session === undefined && sessionId === undefined && req.method === 'POST') {
      session = this.#newSession()
      await session.server.connect(session.transport)
    }
    if (session === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }))
      return
    }
    // The body was read and parsed above: the transport takes it as parsedBody.
    const request = webRequestOf(req, res, this.#port)
    const response = await session.transport.handleRequest(request, body === undefined ? undefined : { parsedBody: body })
    await sendWebResponse(res, response)
  }
}
