// When to try an MCP server again after a failure: exponential back-off with jitter, and a circuit
// breaker against restart storms (enough consecutive failures open it; after the wait, one half-open
// probe, whose failure opens it again). Decisions only: the caller owns the timers.
import type { McpClock } from './clock.ts'
import type { McpConnectionTuning } from './tuning.ts'

export type ReconnectTuning = Pick<McpConnectionTuning,
  'backoffBaseMs' | 'backoffMaxMs' | 'jitter' | 'failureThreshold' | 'circuitOpenMs' | 'stableMs'>

/** What to do after a failure: wait `delayMs`, then make one attempt. */
export interface RetryPlan {
  /** `circuit_open` when the threshold is reached: the attempt after the wait is the half-open probe. */
  state: 'reconnecting' | 'circuit_open'
  delayMs: number
}

export class ReconnectPolicy {
  #failures = 0
  #nextAttemptAt: number | undefined
  readonly #tuning: ReconnectTuning
  readonly #clock: Pick<McpClock, 'now' | 'random'>

  constructor (tuning: ReconnectTuning, clock: Pick<McpClock, 'now' | 'random'>) {
    this.#tuning = tuning
    this.#clock = clock
  }

  /** Consecutive failures; with stability tracking on, a fresh connection only resets them once it has lasted. */
  get failures (): number { return this.#failures }

  /** Monotonic ms of the planned attempt, if one is planned. */
  get nextAttemptAt (): number | undefined { return this.#nextAttemptAt }

  /** Whole seconds until the planned attempt; 0 when none is planned or it is due. */
  secondsToNextAttempt (): number {
    const now = this.#clock.now()
    return Math.max(0, Math.ceil(((this.#nextAttemptAt ?? now) - now) / 1000))
  }

  /** An attempt starts: nothing is planned any more. */
  attemptStarted (): void {
    this.#nextAttemptAt = undefined
  }

  /** With stability tracking off, connecting is success enough; otherwise the loss decides (see lossCounts). */
  connected (): void {
    if (this.#tuning.stableMs === 0) this.#failures = 0
  }

  /** Whether losing a connection that lived `livedMs` is a failure: a crash loop is a restart storm too. */
  lossCounts (livedMs: number): boolean {
    return this.#tuning.stableMs > 0 && livedMs < this.#tuning.stableMs
  }

  /**
   * Records a failure (or, when it does not count, a loss after a stable connection, which starts the
   * count over) and plans the next attempt.
   */
  failed (counts: boolean): RetryPlan {
    this.#failures = counts ? this.#failures + 1 : 0
    const plan: RetryPlan = this.#failures >= this.#tuning.failureThreshold
      ? { state: 'circuit_open', delayMs: this.#tuning.circuitOpenMs }
      : { state: 'reconnecting', delayMs: this.backoff(this.#failures) }
    this.#nextAttemptAt = this.#clock.now() + plan.delayMs
    return plan
  }

  /** base × 2^(n-1), capped, ± jitter; the first retry after a long-lived connection waits `base`. */
  backoff (failures: number): number {
    const { backoffBaseMs, backoffMaxMs, jitter } = this.#tuning
    const raw = Math.min(backoffMaxMs, backoffBaseMs * 2 ** Math.max(0, failures - 1))
    return Math.max(0, Math.round(raw * (1 + jitter * (2 * this.#clock.random() - 1))))
  }
}
