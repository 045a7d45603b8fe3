// Time and chance for MCP connections, injectable so back-off, the circuit breaker and debouncing
// can be tested without waiting.
import { performance } from 'node:perf_hooks'

export interface McpClock {
  /** Monotonic ms. */
  now: () => number
  setTimeout: (fn: () => void, ms: number) => unknown
  clearTimeout: (handle: unknown) => void
  /** In [0, 1). */
  random: () => number
}

export const REAL_CLOCK: McpClock = Object.freeze({
  now: () => performance.now(),
  // Unref'd: a pending reconnection must never keep the gateway process alive.
  setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle: unknown) => clearTimeout(handle as NodeJS.Timeout),
  random: () => Math.random()
})
