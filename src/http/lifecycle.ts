// Readiness and draining. Ready once start-up finished; on shutdown the gateway drains: readiness
// turns 503 and new tool calls are refused with 503 and Retry-After while in-flight ones finish.
import type { FastifyError, FastifyReply } from 'fastify'
import { OverloadedError } from '../errors.ts'

const RETRY_AFTER_SECONDS = '5'

declare module 'fastify' {
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
    this.#draining = true
  }

  /** Counts a tool call in; pair with exactly one `leave()` (try/finally). */
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
    return new Promise((resolve) => this.#idleWaiters.push(resolve))
  }
}
