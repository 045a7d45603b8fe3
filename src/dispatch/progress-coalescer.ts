// A tool's progress reports, passed on at most once per interval per call. An MCP upstream may
// send thousands of notifications a second; relaying each one would cost a write (and an SSE
// event the client must parse) per report, and queue memory when the client reads slowly. The
// latest report of an interval replaces the ones before it, since each report says all there is
// to know (progress so far, total, message); it goes out when the interval ends.
import type { ToolProgress } from '../registry/types.ts'

/** Four a second: live enough for a progress bar, far below what floods a client. */
export const PROGRESS_INTERVAL_MS = 250

export class ProgressCoalescer {
  readonly #send: (update: ToolProgress) => void
  readonly #intervalMs: number
  #lastSentAt = -Infinity
  #pending: ToolProgress | undefined
  #timer: NodeJS.Timeout | undefined
  #closed = false

  constructor (send: (update: ToolProgress) => void, intervalMs = PROGRESS_INTERVAL_MS) {
    this.#send = send
    this.#intervalMs = intervalMs
  }

  report (update: ToolProgress): void {
    if (this.#closed) return
    const waitMs = this.#lastSentAt + this.#intervalMs - performance.now()
    if (waitMs <= 0 && this.#timer === undefined) {
      this.#sendNow(update)
      return
    }
    this.#pending = update
    this.#timer ??= setTimeout(() => { this.#flush() }, Math.max(0, waitMs))
  }

  /** The call has its answer: a report still waiting would describe a call already answered. */
  close (): void {
    this.#closed = true
    this.#pending = undefined
    clearTimeout(this.#timer)
    this.#timer = undefined
  }

  #flush (): void {
    this.#timer = undefined
    const update = this.#pending
    this.#pending = undefined
    if (update !== undefined && !this.#closed) this.#sendNow(update)
  }

  #sendNow (update: ToolProgress): void {
    this.#lastSentAt = performance.now()
    this.#send(update)
  }
}
