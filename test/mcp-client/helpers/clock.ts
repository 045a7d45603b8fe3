// A clock the test moves by hand, for back-off and the circuit breaker: timers fire only on advance().
import type { McpClock } from '../../../src/mcp-client/clock.ts'

interface Timer { at: number, fn: () => void }

export class ManualClock implements McpClock {
  /** Every delay a timer was set with, in order. */
  readonly delays: number[] = []
  randomValue = 0.5
  #now = 0
  #seq = 0
  #timers = new Map<number, Timer>()

  now = (): number => this.#now
  random = (): number => this.randomValue

  setTimeout = (fn: () => void, ms: number): unknown => {
    const id = ++this.#seq
    this.#timers.set(id, { at: this.#now + ms, fn })
    this.delays.push(ms)
    return id
  }

  clearTimeout = (handle: unknown): void => {
    this.#timers.delete(handle as number)
  }

  /** Timers waiting to fire. */
  get pending (): number {
    return this.#timers.size
  }

  /** Moves time forward, firing due timers in order. */
  advance (ms: number): void {
    const target = this.#now + ms
    for (;;) {
      let next: [number, Timer] | undefined
      for (const item of this.#timers) if (item[1].at <= target && (next === undefined || item[1].at < next[1].at)) next = item
      if (next === undefined) break
      this.#timers.delete(next[0])
      this.#now = next[1].at
      next[1].fn()
    }
    this.#now = target
  }
}
