// A tool's progress reports, passed on at a bounded rate per call. An MCP upstream may send
// thousands of notifications a second; relaying each one would cost a write (and an SSE event the
// client must parse) per report, and queue memory when the client reads slowly. A tool that reports
// a few steps is not touched: a burst of PROGRESS_BURST goes out as it comes; past it, one report
// per interval, the latest of the interval replacing the ones before it (each report says all
// there is to know: progress so far, total, message). The call's last report, if one still waits,
// goes out before its answer, so a client's bar ends where the tool did.
import type { ToolProgress } from '../../registry/types.ts'

/** Four a second once the burst is spent: live enough for a progress bar, far below what floods a client. */
export const PROGRESS_INTERVAL_MS = 250
/** Reports passed on at once before the rate applies: a tool with a handful of steps shows each. */
export const PROGRESS_BURST = 8

export class ProgressCoalescer {
  readonly #send: (update: ToolProgress) => void
  readonly #intervalMs: number
  readonly #burst: number
  #tokens: number
  #refilledAt = performance.now()
  #pending: ToolProgress | undefined
  #timer: NodeJS.Timeout | undefined
  #closed = false

  constructor (send: (update: ToolProgress) => void, intervalMs = PROGRESS_INTERVAL_MS, burst = PROGRESS_BURST) {
    this.#send = send
    this.#intervalMs = intervalMs
    this.#burst = burst
    this.#tokens = burst
  }

  report (update: ToolProgress): void {
    if (this.#closed) return
    this.#refill()
    if (this.#timer === undefined && this.#tokens >= 1) {
      this.#tokens -= 1
      this.#send(update)
      return
    }
    this.#pending = update
    this.#timer ??= setTimeout(() => { this.#flush() }, Math.max(0, (1 - this.#tokens) * this.#intervalMs))
  }

  /** The call has its answer: the report still waiting, if any, goes now (before the answer); nothing after. */
  close (): void {
    if (this.#closed) return
    clearTimeout(this.#timer)
    this.#timer = undefined
    const last = this.#pending
    this.#pending = undefined
    this.#closed = true
    if (last !== undefined) this.#send(last)
  }

  #refill (): void {
    const now = performance.now()
    this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#refilledAt) / this.#intervalMs)
    this.#refilledAt = now
  }

  #flush (): void {
    this.#timer = undefined
    const update = this.#pending
    this.#pending = undefined
    if (update === undefined || this.#closed) return
    this.#refill()
    this.#tokens = Math.max(0, this.#tokens - 1)
    this.#send(update)
  }
}
