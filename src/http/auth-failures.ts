// Failed authentications per client address, so that key guessing is slow: after `max` failures
// within a window the address is refused (429, Retry-After) until the window ends. A fixed window
// per address; the table is bounded, so many addresses cannot grow it without limit. With a shared
// counter (Redis) each failure is also counted there, and a replica adopts the count of all: past
// the budget an address is refused everywhere once each replica has seen one more failure of it,
// while the check on every request stays local and synchronous.

import type { SharedFailureCounter } from '../shared-state/failure-counter.ts'

export type { SharedFailureCounter }

export interface AuthFailuresOptions {
  max: number
  windowMs: number
  /** Addresses remembered at most; default 10 000. */
  capacity?: number
  now?: () => number
  shared?: SharedFailureCounter
}

interface Window { failures: number, endsAt: number }

export class AuthFailures {
  readonly #max: number
  readonly #windowMs: number
  readonly #capacity: number
  readonly #now: () => number
  readonly #shared: SharedFailureCounter | undefined
  // Insertion order is age order: the first entry is the oldest window.
  readonly #byAddress = new Map<string, Window>()

  constructor (options: AuthFailuresOptions) {
    this.#max = options.max
    this.#windowMs = options.windowMs
    this.#capacity = options.capacity ?? 10_000
    this.#now = options.now ?? Date.now
    this.#shared = options.shared
  }

  get size (): number {
    return this.#byAddress.size
  }

  /** Seconds until `address` may try again; 0 when it may now. */
  retryAfterSeconds (address: string): number {
    const window = this.#byAddress.get(address)
    if (window === undefined || window.failures < this.#max) return 0
    const left = window.endsAt - this.#now()
    return left > 0 ? Math.ceil(left / 1000) : 0
  }

  /** Counts one failed authentication of `address`. */
  record (address: string): void {
    const window = this.#windowOf(address, this.#windowMs)
    window.failures++
    this.#shared?.(address, this.#windowMs).then((all) => {
      if (all === undefined) return
      // The failures of every replica, in the window Redis keeps for the address.
      const shared = this.#windowOf(address, all.ttlMs)
      shared.failures = Math.max(shared.failures, all.count)
    }, () => {})
  }

  /** The address's window if it is still open, else a new one (no failures) ending in `ttlMs`. */
  #windowOf (address: string, ttlMs: number): Window {
    const now = this.#now()
    const window = this.#byAddress.get(address)
    if (window !== undefined && window.endsAt > now) return window
    this.#byAddress.delete(address)
    if (this.#byAddress.size >= this.#capacity) this.#makeRoom(now)
    const opened = { failures: 0, endsAt: now + ttlMs }
    this.#byAddress.set(address, opened)
    return opened
  }

  #makeRoom (now: number): void {
    for (const [address, window] of this.#byAddress) {
      if (window.endsAt <= now) this.#byAddress.delete(address)
    }
    if (this.#byAddress.size < this.#capacity) return
    const oldest = this.#byAddress.keys().next().value
    if (oldest !== undefined) this.#byAddress.delete(oldest)
  }
}
