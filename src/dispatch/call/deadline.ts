// The deadline of a handler's run (src/dispatch/steps/invoke-handler.ts).
/**
 * A call's deadline, which stops while the call waits for its caller's answer (ctx.ask) and runs on
 * with the time it had left when the last question is answered.
 */
export class Deadline {
  #remainingMs: number
  #startedAt = performance.now()
  #timer: ReturnType<typeof setTimeout> | undefined
  #paused = 0
  readonly #onPassed: () => void

  constructor (timeoutMs: number, onPassed: () => void) {
    this.#remainingMs = timeoutMs
    this.#onPassed = onPassed
    this.#timer = setTimeout(onPassed, timeoutMs)
  }

  pause (): void {
    if (this.#paused++ > 0 || this.#timer === undefined) return
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#remainingMs = Math.max(0, this.#remainingMs - (performance.now() - this.#startedAt))
  }

  resume (): void {
    if (--this.#paused > 0 || this.#remainingMs < 0) return
    this.#startedAt = performance.now()
    this.#timer = setTimeout(this.#onPassed, this.#remainingMs)
  }

  /** The time left, as it stands now (while a question waits: what it had when it stopped). */
  remainingMs (): number {
    if (this.#timer === undefined) return Math.max(0, this.#remainingMs)
    return Math.max(0, this.#remainingMs - (performance.now() - this.#startedAt))
  }

  clear (): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    // A question still waiting when the call ends must not start the timer again.
    this.#remainingMs = -1
  }
}
