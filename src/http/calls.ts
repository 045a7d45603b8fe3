// The life of a tool call at the edge: an HTTP request becomes a dispatch request (headers read,
// the caller's scope applied), the call is counted in flight (draining waits for it) and in the
// metrics, and it is cancelled when its client goes away or the gateway gives up on shutdown.
import type { Socket } from 'node:net'
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Logger } from 'pino'
import { Cancellation } from '../dispatch/cancellation.ts'
import type { DispatchOutcome } from '../dispatch/outcome.ts'
import type { Pending } from '../dispatch/pending.ts'
import { numericHeader } from './query.ts'

declare module 'fastify' {
  interface FastifyInstance {
    calls: Calls
  }
}

export interface Calls {
  /**
   * Starts one tool call for `request`. The Pending settles in the turn the call ends (the route
   * answers without a promise hop); it is also a thenable for callers that await.
   */
  start: (request: FastifyRequest, name: string, args: unknown, callId: string | undefined) => Pending<DispatchOutcome>
}

export default fp(async function calls (app) {
  const { gateway, lifecycle, metrics } = app
  const shutdown = gateway.shutdownSignal

  // One cancellation per connection, shared by the calls of its requests (a call unsubscribes when
  // it ends): it fires when the client goes away (HTTP/1.1: the connection closes) or on shutdown.
  // A signal or a listener per request costs more (bench/README.md).
  const connections = new Set<Cancellation>()
  shutdown.addEventListener('abort', () => {
    for (const cancellation of connections) cancellation.cancel(shutdown.reason)
  }, { once: true })
  // Keyed weakly by socket; `connections` loses an entry when its socket closes (inject()'s mock
  // sockets never do, so apps driven only by inject keep a small object per request).
  const bySocket = new WeakMap<Socket, Cancellation>()

  function cancellationOf (request: FastifyRequest): Cancellation {
    const socket = request.raw.socket
    const known = bySocket.get(socket)
    if (known !== undefined) return known
    const cancellation = new Cancellation()
    bySocket.set(socket, cancellation)
    if (shutdown.aborted) {
      cancellation.cancel(shutdown.reason)
      return cancellation
    }
    connections.add(cancellation)
    socket.once('close', () => {
      connections.delete(cancellation)
      cancellation.cancel(new Error('the client closed the connection'))
    })
    return cancellation
  }

  /** Counts a call out; no outcome means the dispatcher failed, which it never should (the log shows it). */
  function ended (outcome: DispatchOutcome | undefined): void {
    metrics.callEnded(outcome)
    lifecycle.leave()
  }

  function start (request: FastifyRequest, name: string, args: unknown, callId: string | undefined): Pending<DispatchOutcome> {
    const { headers, scope } = request
    // Read before the call is counted in: a bad header throws here.
    const timeoutMs = numericHeader(headers, 'x-tool-timeout-ms')
    const maxResultChars = numericHeader(headers, 'x-max-result-chars')
    const call = {
      name,
      // Outside the caller's toolsets a tool does not exist for it: the same answer as an unknown one.
      visible: scope.restricted ? (tool: string) => scope.mayUse(tool) : undefined,
      args,
      callId,
      sessionId: headers['x-session-id'] as string | undefined,
      cancellation: cancellationOf(request),
      timeoutMs,
      maxResultChars,
      logger: request.log as unknown as Logger
    }
    lifecycle.enter()
    metrics.callStarted()
    return gateway.dispatcher.start(call).map((outcome) => {
      ended(outcome)
      return outcome
    }, (err: unknown) => {
      ended(undefined)
      throw err
    })
  }

  app.decorate('calls', { start })
}, { name: 'calls', dependencies: ['lifecycle', 'metrics', 'access'] })
