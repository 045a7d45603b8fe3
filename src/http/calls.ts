// The life of a tool call at the edge: an HTTP request becomes a dispatch request (headers read,
// the caller's scope applied), the call is counted in flight (draining waits for it) and in the
// metrics, and it is cancelled when its client goes away or the gateway gives up on shutdown.
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Logger } from 'pino'
import type { DispatchOutcome } from '../dispatch/outcome.ts'
import type { Pending } from '../dispatch/pending.ts'
import { ConnectionCancellations } from './connection-cancellations.ts'
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
  const cancellations = new ConnectionCancellations(gateway.shutdownSignal)

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
      principal: request.principal?.name,
      cancellation: cancellations.of(request.raw.socket),
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
