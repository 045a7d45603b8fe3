// Readiness and draining, and the request id on every answer. Ready once start-up finished; on
// shutdown the gateway drains: readiness turns 503, new tool calls are refused with 503 and
// Retry-After while in-flight ones finish, and every answer says Connection: close.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { OverloadedError } from '../shared/errors.ts'
import { closeConnectionsWhenDraining } from './drain-connections.ts'

const RETRY_AFTER_SECONDS = '5'

declare module 'fastify' {
  interface FastifyInstance {
    lifecycle: Lifecycle
  }
  interface FastifyContextConfig {
    /** New requests to this route are refused (503, Retry-After) while the gateway drains. */
    refusedWhileDraining?: boolean
  }
}

export class Lifecycle {
  #ready = false
  #draining = false
  #inFlight = 0
  #idleWaiters: Array<() => void> = []
  #drainListeners: Array<() => void> = []

  get ready (): boolean {
    return this.#ready && !this.#draining
  }

  get draining (): boolean {
    return this.#draining
  }

  get inFlight (): number {
    return this.#inFlight
  }

  markReady (): void {
    this.#ready = true
  }

  beginDrain (): void {
    if (this.#draining) return
    this.#draining = true
    for (const listener of this.#drainListeners) listener()
  }

  /** Runs `listener` once, when draining begins. */
  onDrain (listener: () => void): void {
    this.#drainListeners.push(listener)
  }

  /** Counts a tool call in; pair with exactly one `leave()`. */
  enter (): void {
    this.#inFlight++
  }

  /** Counts a tool call out. */
  leave (): void {
    if (this.#inFlight === 0) throw new Error('Lifecycle.leave() without a matching enter()')
    this.#inFlight--
    if (this.#inFlight === 0 && this.#idleWaiters.length > 0) for (const wake of this.#idleWaiters.splice(0)) wake()
  }

  /** The error that refuses a new tool call while draining; sets Retry-After on the reply. */
  refusal (reply: FastifyReply): FastifyError {
    reply.header('retry-after', RETRY_AFTER_SECONDS)
    return new OverloadedError('the gateway is shutting down; retry against another instance')
  }

  /** Resolves when no tool call is in flight. */
  idle (): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve()
    const { promise, resolve } = Promise.withResolvers<void>()
    this.#idleWaiters.push(resolve)
    return promise
  }
}

/**
 * The request id goes on every answer, and routes that run tools refuse new calls while the
 * gateway drains: a preHandler hook, so after auth and body checks, as the handler itself would.
 * Answers that never reach it (404, bad bodies, auth, rate limits) get the id from the error handler.
 */
function requestIdAndDraining (app: FastifyInstance, lifecycle: Lifecycle): void {
  app.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done: (err?: FastifyError) => void) => {
    reply.header('x-request-id', request.id)
    // Draining first: request.routeOptions builds a new object on every read.
    if (lifecycle.draining && request.routeOptions.config.refusedWhileDraining === true) done(lifecycle.refusal(reply))
    else done()
  })
}

export default fp(async function lifecycle (app) {
  const state = new Lifecycle()
  app.decorate('lifecycle', state)
  state.onDrain(closeConnectionsWhenDraining(app.server, state))
  requestIdAndDraining(app, state)
}, { name: 'lifecycle' })
