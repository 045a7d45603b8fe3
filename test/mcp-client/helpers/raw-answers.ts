// Answers of a misbehaving Streamable HTTP MCP server, written by hand onto the response of a
// tools/call (TestMcpHttpServer.rawAnswer): huge JSON or SSE answers, gzip-compressed ones,
// floods of progress notifications, and answers under another request's id. Each writer stops as
// soon as the client goes away, and says how many decoded bytes it produced.
import type { ServerResponse } from 'node:http'
import { createGzip } from 'node:zlib'
import type { ReceivedMessage } from './http-server.ts'

export interface RawOptions {
  /** Characters of text in the result. */
  textBytes: number
  sse: boolean
  gzip: boolean
  /** The id the answer names; default the request's own. */
  id?: string | number
  /** The text, when not `textBytes` of "a". */
  text?: string
}

const CHUNK = Buffer.alloc(65_536, 'a')

/** Writes the answer; resolves with the decoded bytes written once it is done or the client left. */
export async function writeAnswer (message: ReceivedMessage, res: ServerResponse, options: RawOptions): Promise<number> {
  const id = options.id ?? message.id
  const headers: Record<string, string> = { 'content-type': options.sse ? 'text/event-stream' : 'application/json' }
  if (options.gzip) headers['content-encoding'] = 'gzip'
  res.writeHead(200, headers)
  const sink = options.gzip ? createGzip({ level: 1 }) : undefined
  if (sink) sink.pipe(res)
  const out = sink ?? res
  let written = 0
  res.setMaxListeners(0)
  const state = { closed: false }
  res.on('close', () => { state.closed = true })
  const write = async (bytes: Buffer): Promise<void> => {
    written += bytes.length
    if (!out.write(bytes)) await new Promise<void>((resolve) => { out.once('drain', resolve); res.once('close', resolve) })
  }
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`
  await write(Buffer.from(options.sse ? `event: message\ndata: ${head}` : head))
  if (options.text !== undefined) {
    await write(Buffer.from(options.text))
  } else {
    for (let left = options.textBytes; left > 0 && !state.closed; left -= CHUNK.length) await write(left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left))
  }
  if (!state.closed) {
    await write(Buffer.from(`"}]}}${options.sse ? '\n\n' : ''}`))
    out.end()
  }
  return written
}

/** `times` progress notifications for the request's progress token, then a short result, all on its SSE stream. */
export async function writeProgressFlood (message: ReceivedMessage, res: ServerResponse, times: number): Promise<void> {
  const token = (message.params?._meta as { progressToken?: unknown } | undefined)?.progressToken
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  const state = { closed: false }
  res.on('close', () => { state.closed = true })
  for (let i = 1; i <= times && !state.closed; i++) {
    const event = `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: i, total: times, message: `step ${i}` } })}\n\n`
    if (!res.write(event)) await new Promise<void>((resolve) => { res.once('drain', resolve); res.once('close', resolve) })
  }
  res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'flooded' }] } })}\n\n`)
}
