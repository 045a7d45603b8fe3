// The side of the book that speaks with the other replicas through the shared store, for the calls
// this replica runs: it renews their leases (every third of leaseMs, while any runs), and carries
// out what another replica asked of one (a cancel, answers to its questions), heard as a message
// or, when a message was missed, read at the next heartbeat.
import type { Logger } from 'pino'
import { CancelledError } from '../shared/errors.ts'
import type { CallEvent, CallStore } from './call-record.ts'
import type { CallWaiters } from './call-waiters.ts'
import type { RunningCall } from './running-call.ts'

/** The reason a cancelled call's signal carries. */
export function cancelledBy (callId: string): InstanceType<typeof CancelledError> {
  return new CancelledError(`the call was cancelled by its caller (DELETE /calls/${callId})`)
}

export class LeaseKeeper {
  readonly #shared: CallStore
  readonly #running: ReadonlyMap<string, RunningCall>
  readonly #waiters: CallWaiters
  readonly #leaseMs: number
  readonly #logger: Logger
  #timer: ReturnType<typeof setInterval> | undefined
  #listening = false

  constructor (options: { shared: CallStore, running: ReadonlyMap<string, RunningCall>, waiters: CallWaiters, leaseMs: number, logger: Logger }) {
    this.#shared = options.shared
    this.#running = options.running
    this.#waiters = options.waiters
    this.#leaseMs = options.leaseMs
    this.#logger = options.logger
  }

  /**
   * Hears what replicas say of calls from now on: a replica that never runs nor follows a call
   * in the background opens no connection for it.
   */
  listen (): void {
    if (this.#listening) return
    this.#listening = true
    this.#shared.subscribe((event) => { this.#heard(event) })
  }

  /** A call recorded in the shared store runs here: its lease is renewed from now on. */
  start (): void {
    this.listen()
    if (this.#timer !== undefined) return
    this.#timer = setInterval(() => { this.#beat().catch(() => {}) }, Math.max(10, Math.floor(this.#leaseMs / 3)))
    this.#timer.unref()
  }

  stop (): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }

  /** What another replica (or this one, through Redis) says about a call. */
  #heard (event: CallEvent): void {
    if (event.kind === 'changed') {
      this.#waiters.wake(event.callId)
      return
    }
    const call = this.#running.get(event.callId)
    if (call === undefined) return
    if (event.kind === 'cancel') call.cancel(cancelledBy(call.callId))
    else this.#takeInput(call).catch(() => {})
  }

  async #takeInput (call: RunningCall): Promise<void> {
    if (call.waitingFor === undefined) return
    const responses = await this.#shared.takeInput(call.callId)
    if (responses !== undefined && !call.deliver(responses)) {
      this.#logger.debug({ callId: call.callId }, 'answers left for a call that no longer waits for them were dropped')
    }
  }

  /** Renews the leases of the calls running here; picks up cancels and answers a missed message did not bring. */
  async #beat (): Promise<void> {
    const calls = [...this.#running.values()].filter((call) => call.store === this.#shared)
    if (calls.length === 0) {
      this.stop()
      return
    }
    const ids = calls.map((call) => call.callId)
    await this.#shared.renew(ids)
    for (const callId of await this.#shared.cancelsRequested(ids)) this.#running.get(callId)?.cancel(cancelledBy(callId))
    for (const call of calls) await this.#takeInput(call)
  }
}
