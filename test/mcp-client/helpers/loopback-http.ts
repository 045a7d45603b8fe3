// What the MCP test servers of this folder share: a node:http server on 127.0.0.1 that can be
// closed with its connections (kept-alive sockets would hold close() open), and the bridge between
// node:http and the SDK's web Request/Response handlers.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

export class LoopbackHttp {
  readonly #http: Server
  readonly #sockets = new Set<Socket>()

  private constructor (http: Server) {
    this.#http = http
    http.on('connection', (socket) => {
      this.#sockets.add(socket)
      socket.on('close', () => this.#sockets.delete(socket))
    })
  }

  /** Listens on `port` (0: any free one) and hands every request to `handle` (a failure destroys its response). */
  static async listen (handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>, port = 0): Promise<LoopbackHttp> {
    const loopback = new LoopbackHttp(createServer((req, res) => { handle(req, res).catch(() => res.destroy()) }))
    await new Promise<void>((resolve, reject) => {
      loopback.#http.once('error', reject)
      loopback.#http.listen(port, '127.0.0.1', () => resolve())
    })
    return loopback
  }

  get port (): number {
    return (this.#http.address() as { port: number }).port
  }

  /** Drops every connection, then closes the server. */
  async close (): Promise<void> {
    for (const socket of this.#sockets) socket.destroy()
    await new Promise<void>((resolve) => this.#http.close(() => resolve()))
  }
}

/** The web Request of a node:http request (its body given, already read); aborted when the response closes. */
export function webRequestOf (req: IncomingMessage, res: ServerResponse, port: number, body?: string | Uint8Array<ArrayBuffer>): Request {
  const headers = new Headers()
  for (const [key, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(key, value)
    else if (Array.isArray(value)) for (const v of value) headers.append(key, v)
  }
  const abort = new AbortController()
  res.on('close', () => abort.abort())
  return new Request(`http://127.0.0.1:${port}${req.url ?? '/'}`, { method: req.method, headers, body: req.method === 'POST' ? body : undefined, signal: abort.signal })
}

/**
 * Writes a web Response to `res`, streaming its body until it ends or the client goes away.
 * `onStream`, when the body streams: given the function that cuts the stream, answers what to do when it ends.
 */
export async function sendWebResponse (res: ServerResponse, response: Response, onStream?: (cut: () => void) => () => void): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers.entries()))
  if (response.body === null) {
    res.end()
    return
  }
  res.flushHeaders()
  const reader = response.body.getReader()
  const cut = (): void => { reader.cancel().catch(() => {}) }
  res.on('close', cut)
  const ended = onStream?.(cut)
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      res.write(value)
    }
  } catch {
    // The client went away mid-stream.
  } finally {
    ended?.()
    res.end()
  }
}
