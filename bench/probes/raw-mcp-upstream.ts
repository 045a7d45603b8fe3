// A Streamable HTTP MCP server (protocol 2025-11-25) written on raw node:http, for the upstream-answers
// probe: just enough JSON-RPC for the gateway to connect to it (initialize, notifications/initialized,
// ping, tools/list; GET /mcp answered 405, so no notification stream), and tools/call answered by
// hand with what no real server sends: a 300 MB JSON body, gzip bombs, a flood of progress
// notifications. Every writer stops when the gateway goes away, and records what it wrote.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { gzipSync } from 'node:zlib'

const PROTOCOL_VERSION = '2025-11-25'
const MB = 1024 * 1024

export interface RpcMessage { jsonrpc?: string, id?: string | number, method?: string, params?: Record<string, unknown> }

/** What one tools/call answer cost the upstream. */
export interface Written {
  tool: string
  /** Bytes put on the wire (compressed, for the bombs). */
  wireBytes: number
  /** Bytes those decode to. */
  decodedBytes: number
  progressSent?: number
  progressToken?: unknown
  /** The gateway closed the response before the upstream was done. */
  cutByGateway: boolean
  /** How long the upstream wrote; absent while it still writes (a gateway that stopped reading without closing). */
  ms?: number
}

type Writer = (message: RpcMessage, res: ServerResponse, record: Written) => Promise<void>

/** Writes `bytes` unless the response is gone; waits for drain. */
async function put (res: ServerResponse, record: Written, bytes: Buffer | string, decoded = bytes.length): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false
  record.wireBytes += bytes.length
  record.decodedBytes += decoded
  if (!res.write(bytes)) {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        res.off('drain', done)
        res.off('close', done)
        resolve()
      }
      res.once('drain', done)
      res.once('close', done)
    })
  }
  return !res.destroyed
}

const answerHead = (id: unknown): string => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`
const ANSWER_TAIL = '"}]}}'

/** (a) One JSON answer whose text is `bytes` of "a". */
function bigJson (bytes: number): Writer {
  const chunk = Buffer.alloc(64 * 1024, 'a')
  return async (message, res, record) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    let ok = await put(res, record, answerHead(message.id))
    for (let left = bytes; ok && left > 0; left -= chunk.length) ok = await put(res, record, left >= chunk.length ? chunk : chunk.subarray(0, left))
    if (ok && await put(res, record, ANSWER_TAIL)) res.end()
  }
}

/**
 * (b) The same JSON answer gzip-compressed, its text `mib` MiB of "a": gzip members one after another
 * (one per MiB, about 1 KB each: deflate cannot pack more than about 1 030 to 1), which fetch decodes
 * as one stream. `layers` 2 sends it gzipped once more under `Content-Encoding: gzip, gzip`.
 */
function gzipBomb (mib: number, layers: 1 | 2): Writer {
  const member = gzipSync(Buffer.alloc(MB, 'a'), { level: 9 })
  return async (message, res, record) => {
    const inner = Buffer.concat([gzipSync(answerHead(message.id)), ...Array.from({ length: mib }, () => member), gzipSync(ANSWER_TAIL)])
    const body = layers === 2 ? gzipSync(inner, { level: 9 }) : inner
    const decoded = Buffer.byteLength(answerHead(message.id)) + mib * MB + ANSWER_TAIL.length
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': layers === 2 ? 'gzip, gzip' : 'gzip' })
    // 64 KiB at a time, so that a gateway that stops reading is seen to stop it.
    let ok = true
    for (let at = 0; ok && at < body.length; at += 65_536) {
      const piece = body.subarray(at, at + 65_536)
      ok = await put(res, record, piece, Math.round(decoded * piece.length / body.length))
    }
    if (ok) res.end()
  }
}

/** (c) `times` notifications/progress for the call's progress token on its SSE stream, then a short answer. */
function progressFlood (times: number): Writer {
  return async (message, res, record) => {
    const token = (message.params?._meta as { progressToken?: unknown } | undefined)?.progressToken
    record.progressToken = token ?? null
    record.progressSent = 0
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    const event = (payload: unknown): string => `event: message\ndata: ${JSON.stringify(payload)}\n\n`
    // No token, no progress: the caller asked for none.
    let ok = token !== undefined
    for (let i = 1; ok && i <= times; i += 100) {
      let batch = ''
      for (let j = i; j < i + 100 && j <= times; j++) batch += event({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: j, total: times, message: `step ${j}` } })
      ok = await put(res, record, batch)
      if (ok) record.progressSent = Math.min(times, i + 99)
    }
    if (!res.destroyed) res.end(event({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: `sent ${record.progressSent} progress notifications` }] } }))
  }
}

type Tools = Record<string, { description: string, writer: Writer | undefined }>

function toolsOf (progressReports: number): Tools {
  return {
    big_json: { description: 'Answers 300 MB of JSON.', writer: bigJson(300 * 1000 * 1000) },
    gzip_bomb: { description: 'Answers 1.5 GiB of JSON, gzip-compressed.', writer: gzipBomb(1536, 1) },
    gzip_gzip_bomb: { description: 'Answers 1.5 GiB of JSON, gzip-compressed twice.', writer: gzipBomb(1536, 2) },
    progress_flood: { description: `Sends ${progressReports} progress notifications, then answers.`, writer: progressFlood(progressReports) },
    echo: { description: 'Answers "echo".', writer: undefined }
  }
}

function json (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

async function readBody (req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  let bytes = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    bytes += chunk.length
    if (bytes > MB) throw new Error('request body over 1 MiB')
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

export class RawMcpUpstream {
  readonly written: Written[] = []
  readonly #tools: Tools
  #http: Server | undefined
  #sockets = new Set<Socket>()

  /** `progressReports`: how many notifications progress_flood sends before its answer. */
  constructor (progressReports = 20_000) {
    this.#tools = toolsOf(progressReports)
  }

  get url (): string {
    const address = this.#http?.address()
    return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/mcp`
  }

  async start (): Promise<void> {
    const http = createServer((req, res) => { this.#handle(req, res).catch(() => res.destroy()) })
    http.on('connection', (socket) => {
      this.#sockets.add(socket)
      socket.on('close', () => this.#sockets.delete(socket))
    })
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    this.#http = http
  }

  async close (): Promise<void> {
    for (const socket of this.#sockets) socket.destroy()
    await new Promise<void>((resolve) => this.#http?.close(() => resolve()) ?? resolve())
  }

  async #handle (req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'DELETE') return json(res, 200, {})
    if (req.method !== 'POST') return json(res, 405, { error: 'no notification stream' }, { allow: 'POST, DELETE' })
    const message = JSON.parse(await readBody(req)) as RpcMessage
    if (message.id === undefined) {
      res.writeHead(202).end()
      return
    }
    const answer = (result: unknown, headers: Record<string, string> = {}): void => json(res, 200, { jsonrpc: '2.0', id: message.id, result }, headers)
    switch (message.method) {
      case 'initialize':
        return answer({ protocolVersion: PROTOCOL_VERSION, capabilities: { tools: {} }, serverInfo: { name: 'raw-upstream', version: '1.0.0' } }, { 'mcp-session-id': 'raw-upstream-session' })
      case 'ping':
        return answer({})
      case 'tools/list':
        return answer({ tools: Object.entries(this.#tools).map(([name, tool]) => ({ name, description: tool.description, inputSchema: { type: 'object', properties: {} } })) })
      case 'tools/call':
        return await this.#call(message, res)
      default:
        return json(res, 200, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `no method ${message.method}` } })
    }
  }

  async #call (message: RpcMessage, res: ServerResponse): Promise<void> {
    const name = String(message.params?.name)
    const writer = this.#tools[name]?.writer
    if (writer === undefined) return json(res, 200, { jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: name }] } })
    const record: Written = { tool: name, wireBytes: 0, decodedBytes: 0, cutByGateway: false }
    this.written.push(record)
    const began = performance.now()
    res.on('close', () => { if (!res.writableFinished) record.cutByGateway = true })
    await writer(message, res, record)
    record.ms = Math.round(performance.now() - began)
  }
}
