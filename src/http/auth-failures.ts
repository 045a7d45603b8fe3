// Failed authentications per client address, so that key guessing is slow: after `max` failures
// within a window the address is refused (429, Retry-After) until the window ends. A fixed window
// per address; the table is bounded, so many addresses cannot grow it without limit.

export interface AuthFailuresOptions {
  max: number
  windowMs: number
  /** Addresses remembered at most; default 10 000. */
  capacity?: number
  now?: () => number
}

interface Window { failures: number, endsAt: number }

export class AuthFailures {
  readonly #max: number
  readonly #windowMs: number
  readonly #capacity: number
  readonly #now: () => number
  // Insertion order is age order: the first entry is the oldest window.
  readonly #byAddress = new Map<string, Window>()

  constructor (options: AuthFailuresOptions) {
    this.#max = options.max
    this.#windowMs = options.windowMs
    this.#capacity = options.capacity ?? 10_000
    this.#now = options.now ?? Date.now
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
    const now = this.#now()
    const window = this.#byAddress.get(address)
    if (window !== undefined && window.endsAt > now) {
      window.failures++
      return
    }
    this.#byAddress.delete(address)
    if (this.#byAddress.size >= this.#capacity) this.#makeRoom(now)
    this.#byAddress.set(address, { failures: 1, endsAt: now + this.#windowMs })
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
