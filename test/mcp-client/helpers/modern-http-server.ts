// A real MCP server over Streamable HTTP that speaks only 2026-07-28 (the SDK's createMcpHandler with
// `legacy: 'reject'`: a 2025-era initialize gets -32022), on 127.0.0.1, for tests. Its web fetch face
// is wrapped in node:http here. Tools can be added while it runs (told on subscriptions/listen
// streams), it can crash and come back on the same port, and it records every JSON-RPC message it
// receives, with the raw `_meta` of each request.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createMcpHandler, McpServer, fromJsonSchema, type McpHttpHandler } from '@modelcontextprotocol/server'
import type { ReceivedMessage, TestTool } from './http-server.ts'
import { LoopbackHttp, sendWebResponse, webRequestOf } from './loopback-http.ts'

export interface ModernServerOptions {
  /** ttlMs of its tools/list answers (the SDK's default is 0). */
  listTtlMs?: number
  /** `stateless` also serves 2025-era clients; default `reject` (modern only). */
  legacy?: 'reject' | 'stateless'
  /** 0 (default) = any free one; a given one lets a test put another server where this one was. */
  port?: number
}

export class ModernMcpHttpServer {
  /** Every JSON-RPC message POSTed, in order (params as sent, `_meta` envelope included). */
  readonly received: ReceivedMessage[] = []
  /** The Authorization header of every JSON-RPC request received, with its method (undefined when none was sent). */
  readonly authorizations: Array<{ method: string | undefined, authorization: string | undefined }> = []
  /** Tool calls whose signal the server saw abort. */
  readonly cancelled: Array<{ tool: string }> = []
  /** subscriptions/listen streams open right now. */
  openStreams = 0
  /** While set, requests are held open and never answered, like a wedged server (streams already open stay). */
  frozen = false
  /** Ends them, as a proxy that cuts long responses does (set per stream while it is open). */
  readonly #cuts = new Set<() => void>()
  readonly #tools = new Map<string, TestTool>()
  readonly #options: ModernServerOptions
  #handler: McpHttpHandler
  #http: LoopbackHttp | undefined
  #port = 0

  constructor (tools: Record<string, TestTool> = {}, options: ModernServerOptions = {}) {
    for (const [name, tool] of Object.entries(tools)) this.#tools.set(name, tool)
    this.#options = options
    this.#port = options.port ?? 0
    this.#handler = this.#newHandler()
  }

  get url (): string {
    return `http://127.0.0.1:${this.#port}/mcp`
  }

  /** Messages received with this method (and, for tools/call, this tool). */
  count (method: string, tool?: string): number {
    return this.received.filter((m) => m.method === method && (tool === undefined || m.params?.name === tool)).length
  }

  async start (): Promise<void> {
    // On the port it had before a crash, when it had one.
    this.#http = await LoopbackHttp.listen(async (req, res) => { await this.#handle(req, res) }, this.#port)
    this.#port = this.#http.port
  }

  /** A new tool; every open listen stream that asked for tool changes is told, unless `tell` is false. */
  addTool (name: string, tool: TestTool, tell = true): void {
    this.#tools.set(name, tool)
    if (tell) this.#handler.notify.toolsChanged()
  }

  /** Ends every open listen stream cleanly, without the response that closes a subscription: the server itself stays up. */
  cutStreams (): void {
    for (const cut of this.#cuts) cut()
  }

  /** Gone at once: every socket destroyed (listen streams break), the port closed. */
  async crash (): Promise<void> {
    const http = this.#http
    this.#http = undefined
    // Its sockets go first, at once: the handler's listen streams break as a crash breaks them.
    const closed = http?.close()
    await this.#handler.close()
    this.#handler = this.#newHandler()
    await closed
  }

  /** Back on the same port, with the same tools. */
  restart (): Promise<void> {
    return this.start()
  }

  close (): Promise<void> {
    return this.crash()
  }

  #newHandler (): McpHttpHandler {
    const cacheHints = this.#options.listTtlMs === undefined ? undefined : { 'tools/list': { ttlMs: this.#options.listTtlMs } }
    // One McpServer per request, from the tools as they are now: the SDK's stateless serving.
    return createMcpHandler(() => {
      const server = new McpServer({ name: 'modern-test-server', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } }, cacheHints })
      for (const [name, tool] of this.#tools) this.#register(server, name, tool)
      return server
    }, { legacy: this.#options.legacy ?? 'reject' })
  }

  #register (server: McpServer, name: string, tool: TestTool): void {
    server.registerTool(name, {
      description: tool.description,
      inputSchema: fromJsonSchema((tool.inputSchema ?? { type: 'object', properties: {} }) as never)
    }, async (args: unknown, ctx) => {
      const signal = ctx.mcpReq.signal
      signal.addEventListener('abort', () => this.cancelled.push({ tool: name }), { once: true })
      const progressToken = ctx.mcpReq._meta?.progressToken
      const progress = async (value: number, total?: number): Promise<boolean> => {
        if (progressToken === undefined) return false
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: value, total } })
        return true
      }
      return tool.run(args as Record<string, unknown>, { signal, requestId: ctx.mcpReq.id, progress })
    })
  }

  async #handle (req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.frozen) return
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks)
    let message: ReceivedMessage | undefined
    try {
      message = body.length > 0 ? JSON.parse(body.toString('utf8')) as ReceivedMessage : undefined
    } catch {
      message = undefined
    }
    if (typeof message === 'object' && message !== null) {
      this.received.push(message)
      this.authorizations.push({ method: message.method, authorization: req.headers.authorization })
    }
    const response = await this.#handler.fetch(webRequestOf(req, res, this.#port, body))
    // A subscriptions/listen stream is counted while open, and cut by cutStreams().
    const listening = message?.method === 'subscriptions/listen'
    await sendWebResponse(res, response, listening
      ? (cut) => {
          this.openStreams++
          this.#cuts.add(cut)
          return () => {
            this.openStreams--
            this.#cuts.delete(cut)
          }
        }
      : undefined)
  }
}
