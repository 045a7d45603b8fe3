// Bodies that come slowly, or not at all, must not hold a connection. Two rules:
// - A request answered before its body arrived (401 for a missing key, 429 past a limit, 503 while
//   draining) closes its connection: Node would otherwise keep reading the unread body to reuse the
//   connection, so a client trickling a body it never needed to send kept its socket until the
//   request timeout.
// - A body that stops arriving for http.bodyIdleTimeoutMs is answered 408 and its connection closed,
//   long before the whole-request timeout (http.requestTimeoutMs) would end it.
import type { IncomingMessage } from 'node:http'
import fp from 'fastify-plugin'
import { RequestTimeoutError } from '../shared/errors.ts'

/** Whether the request announces a body that has not all arrived yet. */
function bodyPending (raw: IncomingMessage): boolean {
  // Only a request off a socket says whether its body is complete (app.inject's does not).
  if (raw.complete !== false) return false
  const length = raw.headers['content-length']
  return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

export default fp<{ bodyIdleTimeoutMs: number }>(async function slowBodies (app, { bodyIdleTimeoutMs }) {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (bodyPending(request.raw)) reply.header('connection', 'close')
    done(null, payload)
  })

  app.addHook('preParsing', (request, reply, payload, done) => {
    const raw = request.raw
    if (!bodyPending(raw)) {
      done(null, payload)
      return
    }
    // The socket's idle timer restarts on every byte that arrives; Node asks the request being
    // read first, and closes the socket itself only when nobody answers.
    const socket = raw.socket
    if (typeof socket?.setTimeout !== 'function') {
      done(null, payload)
      return
    }
    const onIdle = (): void => {
      socket.setTimeout(0)
      if (reply.sent || raw.complete) return
      request.log.info({ bodyIdleTimeoutMs }, 'request body stalled: answered 408, connection closed')
      reply.code(408).send(new RequestTimeoutError(`the request body stopped arriving for ${bodyIdleTimeoutMs} ms (http.bodyIdleTimeoutMs, BODY_IDLE_TIMEOUT_MS); send it at once`))
    }
    raw.once('timeout', onIdle)
    raw.once('end', () => {
      raw.removeListener('timeout', onIdle)
      socket.setTimeout(0)
    })
    socket.setTimeout(bodyIdleTimeoutMs)
    done(null, payload)
  })
}, { name: 'slow-bodies' })
