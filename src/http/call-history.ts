// The last minutes of tool calls, for the console's charts (GET /metrics/history, docs/console.md):
// per tool, a ring of time slots (5 s each, 120 of them: ten minutes) holding the calls, the calls
// that did not end ok, and the median and 99th percentile of their durations. Prometheus (/metrics)
// keeps the durable record; this is a window in the process, in fixed memory (about 20 KB per tool,
// at most 1 000 tools) and cheap to answer whatever the load:
// - the slot a tool is in now keeps a reservoir of at most 256 of its durations (a uniform sample);
// - when the tool moves to a later slot, the one it leaves is sealed: its median and 99th percentile
//   are read from the reservoir, which is then cut to 32 evenly spaced order statistics, the sketch
//   from which the total over several tools is read (each point standing for its share of calls).

export interface HistoryOptions {
  stepMs?: number
  slots?: number
  /** Tools tracked at most; the calls of any further tool count under OTHER_TOOLS. */
  maxTools?: number
  /** Durations kept of the current slot per tool (a uniform reservoir sample beyond). */
  reservoir?: number
  now?: () => number
  random?: () => number
}

/** Where the calls of tools beyond maxTools are counted, so totals stay right. */
export const OTHER_TOOLS = '(other)'

/** Order statistics a sealed slot keeps per tool for totals. */
const SKETCH = 32

export interface Series {
  calls: number[]
  errors: number[]
  p50Ms: Array<number | null>
  p99Ms: Array<number | null>
}

export interface HistoryAnswer {
  stepSeconds: number
  slots: number
  /** The end of the current slot, Unix milliseconds. */
  end: number
  tools: Record<string, Series>
  total: Series
}

/** One tool's ring: position `slot % slots` holds absolute slot `slot` when `at[position] === slot`. */
interface ToolRing {
  readonly at: Float64Array
  readonly calls: Uint32Array
  readonly errors: Uint32Array
  /** Sealed slots' percentiles (NaN: no call). */
  readonly p50: Float32Array
  readonly p99: Float32Array
  /** Sealed slots' order statistics, SKETCH per position, `sketched[position]` of them used. */
  readonly sketch: Float32Array
  readonly sketched: Uint8Array
  /** The durations of slot `live` (the last with a call), not yet sealed. */
  readonly reservoir: Float32Array
  /** The slot the reservoir holds (-1 once sealed). */
  live: number
  /** The last slot with a call: a tool quiet for the whole window is left out, and may be forgotten. */
  last: number
}

/** The value at quantile `q` of weighted points (weights: calls each stands for), nearest rank. */
export function weightedQuantile (points: ReadonlyArray<readonly [number, number]>, q: number): number | null {
  if (points.length === 0) return null
  const sorted = [...points].sort((a, b) => a[0] - b[0])
  const rank = q * sorted.reduce((sum, [, weight]) => sum + weight, 0)
  let seen = 0
  for (const [value, weight] of sorted) {
    seen += weight
    if (seen >= rank - 1e-9) return value
  }
  return sorted[sorted.length - 1][0]
}

/** Up to this many points a total's percentiles are exact; beyond, read from a log histogram. */
const EXACT_POINTS = 256
/** The histogram: buckets 4 % wide from 0.01 ms (so a value is off by 2 % at most), 0 below. */
const HISTOGRAM_MIN_MS = 0.01
const HISTOGRAM_RATIO = 1.04
const HISTOGRAM_BUCKETS = 600

/**
 * The values at quantiles `qs` of weighted points. Many points (a total over many busy tools) are
 * counted into a log histogram instead of sorted, so an answer costs the same whatever the load.
 */
export function weightedQuantiles (points: ReadonlyArray<readonly [number, number]>, qs: readonly number[]): Array<number | null> {
  if (points.length <= EXACT_POINTS) return qs.map((q) => weightedQuantile(points, q))
  const buckets = new Float64Array(HISTOGRAM_BUCKETS + 1)
  const perLog = 1 / Math.log(HISTOGRAM_RATIO)
  let total = 0
  for (let i = 0; i < points.length; i++) {
    const [value, weight] = points[i]
    const bucket = value < HISTOGRAM_MIN_MS ? 0 : 1 + Math.min(HISTOGRAM_BUCKETS - 1, Math.floor(Math.log(value / HISTOGRAM_MIN_MS) * perLog))
    buckets[bucket] += weight
    total += weight
  }
  return qs.map((q) => {
    let seen = 0
    for (let bucket = 0; bucket <= HISTOGRAM_BUCKETS; bucket++) {
      seen += buckets[bucket]
      // The middle of the bucket (geometric), the value reported for all it holds.
      if (seen >= q * total - 1e-9 && buckets[bucket] > 0) return bucket === 0 ? 0 : HISTOGRAM_MIN_MS * HISTOGRAM_RATIO ** (bucket - 0.5)
    }
    return null
  })
}

/** Nearest rank in ascending `sorted` (not empty). */
function rankOf (sorted: Float32Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
}

function roundMs (value: number | null): number | null {
  return value === null || Number.isNaN(value) ? null : Math.round(value * 100) / 100
}

export class CallHistory {
  readonly stepMs: number
  readonly slots: number
  readonly #maxTools: number
  readonly #reservoir: number
  readonly #now: () => number
  readonly #random: () => number
  readonly #rings = new Map<string, ToolRing>()

  constructor (options: HistoryOptions = {}) {
    this.stepMs = options.stepMs ?? 5_000
    this.slots = options.slots ?? 120
    this.#maxTools = options.maxTools ?? 1_000
    this.#reservoir = options.reservoir ?? 256
    this.#now = options.now ?? Date.now
    this.#random = options.random ?? Math.random
  }

  /** Tools with a ring now (at most maxTools, plus OTHER_TOOLS). */
  get size (): number {
    return this.#rings.size
  }

  record (tool: string, ok: boolean, durationMs: number): void {
    const slot = Math.floor(this.#now() / this.stepMs)
    const ring = this.#ringOf(tool, slot)
    const position = slot % this.slots
    if (ring.live !== slot) {
      this.#seal(ring)
      ring.at[position] = slot
      ring.calls[position] = 0
      ring.errors[position] = 0
      ring.live = slot
      ring.last = slot
    }
    const seen = ++ring.calls[position]
    if (!ok) ring.errors[position]++
    // Algorithm R: the first durations, then each later one replaces a kept one with falling odds.
    const index = seen <= this.#reservoir ? seen - 1 : Math.floor(this.#random() * seen)
    if (index < this.#reservoir) ring.reservoir[index] = durationMs
  }

  /** The window as it is now, for the tools `visible` lets through (only `tool` when given). */
  answer (visible: (tool: string) => boolean, tool?: string): HistoryAnswer {
    const current = Math.floor(this.#now() / this.stepMs)
    const first = current - this.slots + 1
    const tools: Record<string, Series> = {}
    const shown: ToolRing[] = []
    for (const [name, ring] of this.#rings) {
      if ((tool !== undefined && name !== tool) || ring.last < first || !visible(name)) continue
      if (ring.live !== -1 && ring.live < current) this.#seal(ring)
      shown.push(ring)
      tools[name] = this.#series(first, [ring])
    }
    return { stepSeconds: this.stepMs / 1000, slots: this.slots, end: (current + 1) * this.stepMs, tools, total: this.#series(first, shown) }
  }

  #ringOf (tool: string, slot: number): ToolRing {
    const known = this.#rings.get(tool)
    if (known !== undefined) return known
    // OTHER_TOOLS itself is the one ring allowed past the bound.
    if (tool !== OTHER_TOOLS && this.#tracked() >= this.#maxTools && !this.#forgetQuiet(slot)) return this.#ringOf(OTHER_TOOLS, slot)
    const ring: ToolRing = {
      at: new Float64Array(this.slots).fill(-1),
      calls: new Uint32Array(this.slots),
      errors: new Uint32Array(this.slots),
      p50: new Float32Array(this.slots).fill(Number.NaN),
      p99: new Float32Array(this.slots).fill(Number.NaN),
      sketch: new Float32Array(this.slots * SKETCH),
      sketched: new Uint8Array(this.slots),
      reservoir: new Float32Array(this.#reservoir),
      live: -1,
      last: -1
    }
    this.#rings.set(tool, ring)
    return ring
  }

  /** Forgets the tools without a call in the window; whether room was made. */
  #forgetQuiet (slot: number): boolean {
    for (const [name, ring] of this.#rings) {
      if (ring.last <= slot - this.slots && name !== OTHER_TOOLS) this.#rings.delete(name)
    }
    return this.#tracked() < this.#maxTools
  }

  #tracked (): number {
    return this.#rings.size - (this.#rings.has(OTHER_TOOLS) ? 1 : 0)
  }

  /** Seals the ring's live slot: its percentiles and sketch from the reservoir, which is free again. */
  #seal (ring: ToolRing): void {
    if (ring.live < 0) return
    const position = ring.live % this.slots
    const sorted = ring.reservoir.slice(0, Math.min(ring.calls[position], this.#reservoir)).sort()
    const keep = Math.min(sorted.length, SKETCH)
    ring.p50[position] = rankOf(sorted, 0.5)
    ring.p99[position] = rankOf(sorted, 0.99)
    for (let i = 0; i < keep; i++) ring.sketch[position * SKETCH + i] = sorted[Math.floor((i + 0.5) * sorted.length / keep)]
    ring.sketched[position] = keep
    ring.live = -1
  }

  /** The four arrays of `rings` added together, slot by slot from `first`. */
  #series (first: number, rings: readonly ToolRing[]): Series {
    const series: Series = { calls: [], errors: [], p50Ms: [], p99Ms: [] }
    for (let slot = first; slot < first + this.slots; slot++) {
      const position = slot % this.slots
      const present = rings.filter((ring) => ring.at[position] === slot)
      series.calls.push(present.reduce((sum, ring) => sum + ring.calls[position], 0))
      series.errors.push(present.reduce((sum, ring) => sum + ring.errors[position], 0))
      const [p50, p99] = this.#percentiles(present, position, slot)
      series.p50Ms.push(roundMs(p50))
      series.p99Ms.push(roundMs(p99))
    }
    return series
  }

  /** The median and 99th percentile of one slot over `rings`. */
  #percentiles (rings: readonly ToolRing[], position: number, slot: number): [number | null, number | null] {
    if (rings.length === 0) return [null, null]
    const [only] = rings
    if (rings.length === 1 && only.live !== slot) return [only.p50[position], only.p99[position]]
    // Each point stands for its share of its tool's calls, so a busy tool weighs more.
    const points: Array<[number, number]> = []
    for (const ring of rings) {
      const calls = ring.calls[position]
      const values = ring.live === slot
        ? ring.reservoir.subarray(0, Math.min(calls, this.#reservoir))
        : ring.sketch.subarray(position * SKETCH, position * SKETCH + ring.sketched[position])
      for (const value of values) points.push([value, calls / values.length])
    }
    const [p50, p99] = weightedQuantiles(points, [0.5, 0.99])
    return [p50, p99]
  }
}
