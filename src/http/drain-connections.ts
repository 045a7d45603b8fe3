// While the gateway drains, every answer says `Connection: close`: a keep-alive client then opens a
// new connection (to another instance) instead of reusing one that the server is about to close,
// which it would see as ECONNRESET. Covers answers to requests that arrive while draining, and the
// answers still to be written for requests already running when draining began.
import type { Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

const CLOSE = 'close'

export interface DrainingState {
  readonly draining: boolean
}

/**
 * Watches `server`'s connections, and returns what to call when draining begins. Costs one WeakMap
 * write per request and a Set entry per connection; the header is only touched while draining.
 */
export function closeConnectionsWhenDraining (server: Server, state: DrainingState): () => void {
  const open = new Set<Socket>()
  // The answer each connection is working on now (HTTP/1.1 answers one request at a time).
  const current = new WeakMap<Socket, ServerResponse>()
  server.on('connection', (socket: Socket) => {
    open.add(socket)
    socket.once('close', () => open.delete(socket))
  })
  // Before Fastify's own listener, so the header is set before any route or error handler runs.
  server.prependListener('request', (request, response) => {
    current.set(request.socket, response)
    if (state.draining) response.setHeader('connection', CLOSE)
  })
  return function markAnswersInFlight (): void {
    for (const socket of open) {
      const response = current.get(socket)
      if (response !== undefined && !response.headersSent && !response.writableEnded) response.setHeader('connection', CLOSE)
    }
  }
}
