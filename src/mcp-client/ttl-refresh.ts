// When to fetch a server's tool list again because its last answer said how long it stays fresh
// (`ttlMs`, 2026-07-28). The gateway serves that list all the time, so it reads the hint as "fetch
// again once stale". The specification asks whoever polls on it for jitter and back-off, and the
// SDK's servers answer ttlMs 0 ("stale at once") unless told otherwise, so:
// - the wait is never below TTL_REFRESH_FLOOR_MS (a minute): ttlMs 0 is a refresh a minute at most;
// - each such refresh that finds the list unchanged doubles the wait, up to 16 times (ttlMs 0: 16
//   minutes); a change starts over from the hint;
// - the wait is stretched by up to 10 % at random, so that gateways do not ask in step.
// A list without ttlMs (every 2025-era server) plans nothing: its changes come by notification.
import { MAX_TIMER_MS } from '../shared/timers.ts'
import type { McpClock } from './clock.ts'

export const TTL_REFRESH_FLOOR_MS = 60_000
const MAX_BACKOFF_DOUBLINGS = 4
const JITTER = 0.1

export interface TtlRefreshOptions {
  clock: McpClock
  /** Least wait, whatever ttlMs says; default TTL_REFRESH_FLOOR_MS. */
  floorMs?: number
  /** The list is stale: refresh it (coalesced by the caller's scheduler). */
  onStale: () => void
}

export class TtlRefresh {
  readonly #options: TtlRefreshOptions
  #timer: unknown
  #unchanged = 0
  #disposed = false

  constructor (options: TtlRefreshOptions) {
    this.#options = options
  }

  /**
   * A list was applied: plan the next refresh from its ttlMs (none when absent). `changed`: whether
   * it differed from the previous one, which resets the back-off.
   */
  listed (ttlMs: number | undefined, changed: boolean): void {
    this.cancel()
    if (this.#disposed || ttlMs === undefined) return
    this.#unchanged = changed ? 0 : Math.min(MAX_BACKOFF_DOUBLINGS, this.#unchanged + 1)
    this.#timer = this.#options.clock.setTimeout(() => {
      this.#timer = undefined
      this.#options.onStale()
    }, this.delayFor(ttlMs))
  }

  /** The wait for a list with this ttlMs, given the back-off reached (public for tests). */
  delayFor (ttlMs: number): number {
    const { clock, floorMs = TTL_REFRESH_FLOOR_MS } = this.#options
    // A negative ttlMs is read as 0, as the specification says.
    const base = Math.max(floorMs, ttlMs, 0) * 2 ** this.#unchanged
    return Math.min(MAX_TIMER_MS, Math.round(base * (1 + JITTER * clock.random())))
  }

  cancel (): void {
    this.#options.clock.clearTimeout(this.#timer)
    this.#timer = undefined
  }

  dispose (): void {
    this.#disposed = true
    this.cancel()
  }
}
