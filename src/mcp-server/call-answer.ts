// The HTTP answer of one 2026-07-28 request answered by the gateway itself: a single JSON body,
// unless something related to the request (a progress report) must go out before its result; then
// the answer turns into a Server-Sent Events stream of those messages, the result last. This is the
// SDK's `auto` response mode, with its headers and keep-alive comments.
import { PassThrough } from 'node:stream'
import type { FastifyReply } from 'fastify'

/** A comment line this often keeps proxies and clients from closing a quiet stream (the SDK's default). */
const KEEP_ALIVE_MS = 15_000

function event (json: string): string {
  return `event: message\ndata: ${json}\n\n`
}

export class CallAnswer {
  readonly #reply: FastifyReply
  #stream: PassThrough | undefined
  #keepAlive: NodeJS.Timeout | undefined

  constructor (reply: FastifyReply) {
    this.#reply = reply
  }

  /** Sends a notification about the request, turning the answer into a stream on the first one. */
  notify (method: string, params: Record<string, unknown>): void {
    const stream = this.#stream ?? this.#open()
    if (stream.writable) stream.write(event(JSON.stringify({ jsonrpc: '2.0', method, params })))
  }

  /** Sends the final message (a result or an error) and ends the answer. */
  async end (message: string): Promise<FastifyReply> {
    const stream = this.#stream
    if (stream === undefined) return await this.#reply.type('application/json').send(message)
    clearInterval(this.#keepAlive)
    if (stream.writable) stream.end(event(message))
    return this.#reply
  }

  #open (): PassThrough {
    const stream = new PassThrough()
    this.#stream = stream
    this.#reply
      .header('cache-control', 'no-cache, no-transform')
      .header('x-accel-buffering', 'no')
      .type('text/event-stream')
      .send(stream)
    this.#keepAlive = setInterval(() => { if (stream.writable) stream.write(': keepalive\n\n') }, KEEP_ALIVE_MS)
    this.#keepAlive.unref()
    // The client going away ends the call through its connection's cancellation; here only the timer.
    stream.once('close', () => { clearInterval(this.#keepAlive) })
    return stream
  }
}
