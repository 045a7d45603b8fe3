// One cancellation per client connection, shared by the calls of its requests (a call removes its
// listener when it ends): it fires when the client goes away (HTTP/1.1: the connection closes) or
// when the gateway gives up on shutdown.
import type { Socket } from 'node:net'
import { Cancellation } from '../dispatch/call/cancellation.ts'

export class ConnectionCancellations {
  readonly #shutdown: AbortSignal
  /** Connections still open; each leaves when its socket closes. */
  readonly #open = new Set<Cancellation>()
  // Keyed weakly by socket: inject()'s mock sockets never close, so apps driven only by inject
  // keep a small object per request until the socket is collected.
  readonly #bySocket = new WeakMap<Socket, Cancellation>()

  constructor (shutdown: AbortSignal) {
    this.#shutdown = shutdown
    shutdown.addEventListener('abort', () => {
      for (const cancellation of this.#open) cancellation.cancel(shutdown.reason)
    }, { once: true })
  }

  /** The cancellation of the connection `socket` belongs to, made on its first request. */
  of (socket: Socket): Cancellation {
    const known = this.#bySocket.get(socket)
    if (known !== undefined) return known
    const cancellation = new Cancellation()
    this.#bySocket.set(socket, cancellation)
    if (this.#shutdown.aborted) {
      cancellation.cancel(this.#shutdown.reason)
      return cancellation
    }
    this.#open.add(cancellation)
    socket.once('close', () => {
      this.#open.delete(cancellation)
      cancellation.cancel(new Error('the client closed the connection'))
    })
    return cancellation
  }
}
