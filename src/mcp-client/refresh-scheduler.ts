// When to fetch a server's tool list again after notifications/tools/list_changed. Each refresh
// of a server with thousands of tools is real work on the event loop (the list, every schema
// checked), so notifications are coalesced: one waits `debounceMs` for the rest of its burst
// (a server adding ten tools costs one fetch), never more than one refresh runs at a time, and
// two start at least `minIntervalMs` apart however the notifications are spaced. A notification
// that arrives meanwhile is never lost: it is owed one more refresh, run when its turn comes.
import type { McpClock } from './clock.ts'

export interface RefreshSchedulerOptions {
  clock: McpClock
  debounceMs: number
  minIntervalMs: number
  /** The refresh itself; never rejects. */
  run: () => Promise<unknown>
}

export class RefreshScheduler {
  readonly #options: RefreshSchedulerOptions
  #timer: unknown
  #scheduled = false
  #running = false
  #owed = false
  #lastStart = Number.NEGATIVE_INFINITY
  #disposed = false

  constructor (options: RefreshSchedulerOptions) {
    this.#options = options
  }

  /** A notification came: a refresh will follow, coalesced with the others. */
  request (): void {
    if (this.#disposed) return
    this.#owed = true
    if (!this.#scheduled && !this.#running) this.#schedule()
  }

  dispose (): void {
    this.#disposed = true
    this.#options.clock.clearTimeout(this.#timer)
  }

  #schedule (): void {
    const { clock, debounceMs, minIntervalMs } = this.#options
    const delay = Math.max(debounceMs, this.#lastStart + minIntervalMs - clock.now())
    this.#scheduled = true
    this.#timer = clock.setTimeout(() => { this.#fire() }, delay)
  }

  async #fire (): Promise<void> {
    this.#scheduled = false
    if (this.#disposed) return
    this.#owed = false
    this.#running = true
    this.#lastStart = this.#options.clock.now()
    try {
      await this.#options.run()
    } finally {
      this.#running = false
      if (this.#owed && !this.#disposed) this.#schedule()
    }
  }
}
