// Runs tools' availability probes (checkFn) with a TTL cache, failure grace, in-flight sharing and a deadline.
import { performance } from 'node:perf_hooks'
import type { Logger } from 'pino'
import type { CheckFn, CheckVerdict, ToolEntry } from '../registry/types.ts'
import { withTimeout } from '../shared/timers.ts'

export interface Availability {
  available: boolean
  /** Always set when `available` is false. */
  reason?: string
}

export interface AvailabilityCheckerOptions {
  /** How long a verdict is reused; default 30 000. */
  ttlMs?: number
  /** A failure this soon after the probe's last success is treated as transient; default 60 000. */
  graceMs?: number
  /** Deadline of one probe run; default 2 000. */
  probeTimeoutMs?: number
  /** Monotonic clock in ms; default `performance.now`. */
  now?: () => number
  logger?: Pick<Logger, 'warn' | 'debug'>
  /** The configuration as it stands, handed to every probe as ctx.config (a reload swaps it). */
  config?: () => unknown
}

interface ProbeState {
  cached?: { verdict: Availability, at: number }
  lastSuccessAt?: number
  inflight?: Promise<Availability>
}

interface ProbeOutcome {
  verdict: Availability
  /** A throw or a timeout, as opposed to a probe that answered "unavailable". */
  faulted: boolean
}

const MAX_MESSAGE_CHARS = 300
const AVAILABLE: Availability = Object.freeze({ available: true })

function cap (text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text
}

function describeThrown (err: unknown): string {
  try {
    // Only the message: a stack trace would leak paths into /tools and waste space.
    const message = err instanceof Error ? err.message : String(err)
    return cap(message || (err instanceof Error ? err.name : 'unknown error'))
  } catch {
    return 'unprintable error'
  }
}

function normalise (value: boolean | CheckVerdict): Availability {
  if (typeof value === 'boolean') {
    return value ? AVAILABLE : Object.freeze({ available: false, reason: 'availability check returned false' })
  }
  if (value === null || typeof value !== 'object') {
    // A probe returning something else breaks its contract; read it like a truthy/falsy boolean.
    return value ? AVAILABLE : Object.freeze({ available: false, reason: `availability check returned ${String(value)}` })
  }
  const reason = typeof value.reason === 'string' && value.reason !== '' ? cap(value.reason) : undefined
  if (value.available) return reason ? Object.freeze({ available: true, reason }) : AVAILABLE
  return Object.freeze({ available: false, reason: reason ?? 'availability check returned false' })
}

export class AvailabilityChecker {
  readonly #ttlMs: number
  readonly #graceMs: number
  readonly #probeTimeoutMs: number
  readonly #now: () => number
  readonly #logger?: Pick<Logger, 'warn' | 'debug'>
  readonly #config: () => unknown
  // Keyed by the function itself: tools sharing one probe share its cache and its in-flight run.
  #states = new WeakMap<CheckFn, ProbeState>()

  constructor (options: AvailabilityCheckerOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 30_000
    this.#graceMs = options.graceMs ?? 60_000
    this.#probeTimeoutMs = options.probeTimeoutMs ?? 2_000
    this.#now = options.now ?? (() => performance.now())
    this.#logger = options.logger
    this.#config = options.config ?? (() => undefined)
  }

  /** Runs (or reuses) the probe `fn`; the cache key is the function identity, so a probe shared by several tools runs once. */
  check (fn: CheckFn): Promise<Availability> {
    let state = this.#states.get(fn)
    if (!state) {
      state = {}
      this.#states.set(fn, state)
    }
    const fresh = this.#fresh(state)
    if (fresh !== undefined) return Promise.resolve(fresh)
    if (state.inflight) return state.inflight
    // Set synchronously so that every caller in the same tick joins this run.
    const inflight = this.#probe(fn).then((outcome) => this.#settle(fn, state, outcome))
    state.inflight = inflight
    return inflight
  }

  /**
   * A tool's availability: no checkFn → available; otherwise its probe's verdict. requiresEnv is
   * not consulted: it is metadata, settings may come from the config file rather than the
   * environment, and the probe knows which of several variables would do.
   */
  async tool (entry: ToolEntry): Promise<Availability> {
    if (!entry.checkFn) return AVAILABLE
    return await this.check(entry.checkFn)
  }

  /**
   * The verdict `tool(entry)` would give, when it needs no probe: no checkFn, or a fresh cached
   * verdict. Undefined otherwise. Lets a dispatch skip a promise hop on its hot path.
   */
  known (entry: ToolEntry): Availability | undefined {
    if (!entry.checkFn) return AVAILABLE
    const state = this.#states.get(entry.checkFn)
    return state === undefined ? undefined : this.#fresh(state)
  }

  /** The cached verdict while it is within its TTL. */
  #fresh (state: ProbeState): Availability | undefined {
    const cached = state.cached
    return cached !== undefined && this.#now() - cached.at < this.#ttlMs ? cached.verdict : undefined
  }

  /** Availability of many tools in one pass (probes shared, run concurrently): name → Availability. */
  async tools (entries: Iterable<ToolEntry>): Promise<Map<string, Availability>> {
    const list = [...entries]
    const verdicts = await Promise.all(list.map((entry) => this.tool(entry)))
    return new Map(list.map((entry, i) => [entry.name, verdicts[i]]))
  }

  /** Forget cached verdicts (e.g. after config reload); optional helper. */
  clear (): void {
    // Runs still in flight write into the old states, which nothing reads any more.
    this.#states = new WeakMap()
  }

  /** One run of the probe, bounded by the deadline; never rejects. */
  #probe (fn: CheckFn): Promise<ProbeOutcome> {
    let answer: Promise<ProbeOutcome>
    try {
      answer = Promise.resolve(fn({ config: this.#config() })).then(
        (value) => ({ verdict: normalise(value), faulted: false }),
        (err: unknown) => this.#thrown(fn, err)
      )
    } catch (err) {
      return Promise.resolve(this.#thrown(fn, err))
    }
    // Whichever comes first wins; the hung probe's late answer is dropped, and it never keeps the process alive.
    return withTimeout(answer, this.#probeTimeoutMs, (): ProbeOutcome => {
      const reason = `availability check timed out after ${this.#probeTimeoutMs} ms`
      this.#logger?.warn({ probe: fn.name || '(anonymous)', timeoutMs: this.#probeTimeoutMs }, 'availability check timed out')
      return { verdict: Object.freeze({ available: false, reason }), faulted: true }
    }, { unref: true })
  }

  #thrown (fn: CheckFn, err: unknown): ProbeOutcome {
    const message = describeThrown(err)
    this.#logger?.warn({ probe: fn.name || '(anonymous)', err: message }, 'availability check threw')
    return { verdict: Object.freeze({ available: false, reason: `availability check threw: ${message}` }), faulted: true }
  }

  #settle (fn: CheckFn, state: ProbeState, outcome: ProbeOutcome): Availability {
    state.inflight = undefined
    const at = this.#now()
    const { verdict } = outcome
    if (verdict.available) {
      state.lastSuccessAt = at
      state.cached = { verdict, at }
      return verdict
    }
    if (state.lastSuccessAt !== undefined && at - state.lastSuccessAt <= this.#graceMs) {
      // A flapping probe must not strip tools: report available, keep nothing, ask again next time.
      state.cached = undefined
      this.#logger?.debug({ probe: fn.name || '(anonymous)', reason: verdict.reason }, 'availability check failed within grace')
      return Object.freeze({ available: true, reason: `transient failure, within grace: ${verdict.reason}` })
    }
    if (!outcome.faulted) this.#logger?.debug({ probe: fn.name || '(anonymous)', reason: verdict.reason }, 'tool unavailable')
    state.cached = { verdict, at }
    return verdict
  }
}
