// Real MCP servers (the SDK 2.4 server) on 127.0.0.1 whose tools ask their caller questions, for
// the tests of what an upstream asks through the gateway. `modern`: 2026-07-28 only (createMcpHandler,
// 2025 openings refused), where a tool asks by returning inputRequired(...) and reads the answers
// on the retried request. `legacy`: 2025-11-25 sessions over Streamable HTTP, where a tool asks
// with a request of its own (ctx.mcpReq.elicitInput, ...) on its call's stream. Each tool gets the
// SDK's ctx and its McpServer; every JSON-RPC message POSTed is recorded with its headers.
// writeLegacyStdioAsker writes the 2025-era stdio counterpart into a temp folder.
import { randomUUID } from 'node:crypto'
import { mkdtemp, writeFile } from 'node:fs/promises'
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { LoopbackHttp, sendWebResponse, webRequestOf } from './loopback-http.ts'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  createMcpHandler, fromJsonSchema, McpServer, WebStandardStreamableHTTPServerTransport, type McpHttpHandler, type ServerContext
} from '@modelcontextprotocol/server'

export interface AskingTool {
  inputSchema?: Record<string, unknown>
  run: (args: Record<string, unknown>, ctx: ServerContext, server: McpServer) => unknown
}

export interface RecordedMessage {
  method?: string
  id?: string | number
  params?: Record<string, unknown>
  result?: unknown
  error?: { code: number, message: string }
  headers: IncomingHttpHeaders
}

interface Session {
  server: McpServer
  transport: WebStandardStreamableHTTPServerTransport
}

export class AskingHttpServer {
  /** Every JSON-RPC message POSTed, in order, with the headers of its request. */
  readonly received: RecordedMessage[] = []
  readonly #tools: Record<string, AskingTool>
  readonly #era: 'modern' | 'legacy'
  readonly #handler: McpHttpHandler | undefined
  readonly #sessions = new Map<string, Session>()
  #http: LoopbackHttp | undefined
  #port = 0

  constructor (era: 'modern' | 'legacy', tools: Record<string, AskingTool>) {
    this.#era = era
    this.#tools = tools
    if (era === 'modern') this.#handler = createMcpHandler(() => this.#newServer(), { legacy: 'reject' })
  }

  get url (): string {
    return `http://127.0.0.1:${this.#port}/mcp`
  }

  /** Requests received with this method (and, for tools/call, this tool). */
  requests (method: string, tool?: string): RecordedMessage[] {
    return this.received.filter((m) => m.method === method && (tool === undefined || m.params?.name === tool))
  }

  /** Answers the gateway POSTed (to the server's own requests). */
  answers (): RecordedMessage[] {
    return this.received.filter((m) => m.method === undefined)
  }

  async start (): Promise<void> {
    this.#http = await LoopbackHttp.listen(async (req, res) => { await this.#handle(req, res) })
    this.#port = this.#http.port
  }

  async close (): Promise<void> {
    await Promise.allSettled([...this.#sessions.values()].map((s) => s.server.close()))
    await this.#handler?.close()
    await this.#http?.close()
  }

  #newServer (): McpServer {
    const server = new McpServer({ name: `asking-${this.#era}`, version: '1.0.0' }, { capabilities: { tools: {} } })
    for (const [name, tool] of Object.entries(this.#tools)) {
      server.registerTool(name, { inputSchema: fromJsonSchema((tool.inputSchema ?? { type: 'object', properties: {} }) as never) },
        async (args: unknown, ctx) => await tool.run(args as Record<string, unknown>, ctx, server) as never)
    }
    return server
  }

  async #legacySession (req: IncomingMessage): Promise<Session | undefined> {
    const id = req.headers['mcp-session-id']
    if (typeof id === 'string') return this.#sessions.get(id)
    if (req.method !== 'POST') return undefined
    const session: Session = {
      server: this.#newServer(),
      transport: new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => { this.#sessions.set(sessionId, session) }
      })
    }
    await session.server.connect(session.transport)
    return session
  }

  async #handle (req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    let body: unknown
    try {
      body = text === '' ? undefined : JSON.parse(text)
    } catch {
      body = undefined
    }
    for (const message of Array.isArray(body) ? body : [body]) {
      if (typeof message === 'object' && message !== null) this.received.push({ ...(message as object), headers: req.headers })
    }
    const request = webRequestOf(req, res, this.#port, text)
    let response: Response
    if (this.#handler !== undefined) {
      response = await this.#handler.fetch(request)
    } else {
      const session = await this.#legacySession(req)
      if (session === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }))
        return
      }
      response = await session.transport.handleRequest(request, body === undefined ? undefined : { parsedBody: body })
    }
    await sendWebResponse(res, response)
  }
}

const SDK = new URL('../../../node_modules/@modelcontextprotocol/server/dist/', import.meta.url)

// `confirm` asks for a confirmation with elicitInput (its message names the target) and answers
// with what it got, or with the error its request got; `wait` holds its call for `ms`.
const LEGACY_STDIO = `
import { appendFileSync } from 'node:fs'
import { McpServer, fromJsonSchema } from ${JSON.stringify(new URL('index.mjs', SDK).href)}
import { StdioServerTransport } from ${JSON.stringify(new URL('stdio.mjs', SDK).href)}
const server = new McpServer({ name: 'asking-stdio', version: '1.0.0' })
server.registerTool('confirm', { inputSchema: fromJsonSchema({ type: 'object', properties: { target: { type: 'string' } } }) }, async ({ target }, ctx) => {
  try {
    const answer = await ctx.mcpReq.elicitInput({ message: 'Deploy to ' + target + '?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } })
    return { content: [{ type: 'text', text: target + ': ' + JSON.stringify(answer) }] }
  } catch (err) {
    return { content: [{ type: 'text', text: target + ' refused: ' + err.code + ' ' + err.message }], isError: true }
  }
})
server.registerTool('wait', { inputSchema: fromJsonSchema({ type: 'object', properties: { ms: { type: 'number' } } }) }, async ({ ms }) => {
  await new Promise((resolve) => setTimeout(resolve, ms))
  return { content: [{ type: 'text', text: 'waited' }] }
})
await server.connect(new StdioServerTransport())
`

/** The 2025-era stdio server whose `confirm` asks with elicitation/create; returns the script's path. */
export async function writeLegacyStdioAsker (): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-mcp-asking-stdio-'))
  const script = join(dir, 'asking-stdio.mjs')
  await writeFile(script, LEGACY_STDIO)
  return pathToFileURL(script).pathname
}
