// The figures of a benchmark run: per scenario (mean req/s, latency percentiles, CPU per request,
// answers that were not the expected ones, /healthz latency under load) and per pair the ratios of
// the gateway to its floor, req/s paired round by round.
import { keyOf, type Scenario, type Totals } from './measure.ts'

export interface Measured {
  pair: string
  side: 'floor' | 'gateway'
  description: string
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  totalRequests: number
  /** Server CPU time (user + system) per answered request over the measured periods. */
  serverCpuUsPerRequest: number
  /** Answers not the expected ones: other statuses (by status), transport errors, timeouts. */
  unexpected: Record<string, number>
  errors: number
  timeouts: number
  /** GET /healthz during the load, when it was polled. */
  health?: { polls: number, failures: number, p99Ms: number, maxMs: number }
}

export interface PairRatio {
  pair: string
  /** Gateway req/s over floor req/s: the median of the per-round ratios (a round and the floor's round just before it). */
  throughput: number
  perRound: number[]
  /** Gateway p99 over floor p99, all rounds together. */
  p99: number
  /** Floor CPU per request over the gateway's: the throughput ratio free of the load generator. */
  serverCpu: number
}

export function mean (values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length
}

/** The nearest-rank percentile of sorted values, in ms rounded to 0.01. */
export function percentile (sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN
  const value = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
  return Math.round(value * 100) / 100
}

export function median (values: readonly number[]): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((x, y) => x - y)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

const round2 = (value: number): number => Math.round(value * 100) / 100

function summarise (scenario: Scenario, totals: Totals): Measured {
  totals.latencies.sort((x, y) => x - y)
  const health = [...totals.healthMs].sort((x, y) => x - y)
  return {
    pair: scenario.pair,
    side: scenario.side,
    description: scenario.description,
    requestsPerSecond: Math.round(mean(totals.requestsPerSecond)),
    p50Ms: percentile(totals.latencies, 0.5),
    p99Ms: percentile(totals.latencies, 0.99),
    totalRequests: totals.requests,
    serverCpuUsPerRequest: Math.round(totals.cpuUs / totals.requests * 10) / 10,
    unexpected: totals.unexpected,
    errors: totals.errors,
    timeouts: totals.timeouts,
    ...(scenario.pollHealth === true
      ? { health: { polls: health.length + totals.healthFailures, failures: totals.healthFailures, p99Ms: percentile(health, 0.99), maxMs: round2(health.at(-1) ?? Number.NaN) } }
      : {})
  }
}

/** Round i of the gateway over round i of its floor (same trial, seconds apart), and their median. */
export function pairedRatios (gateway: readonly number[], floor: readonly number[]): { median: number, rounds: number[] } {
  const rounds = gateway.map((value, i) => round2(value / floor[i]))
  return { median: round2(median(rounds)), rounds }
}

/** Each scenario's figures, in the order they ran, and the ratio of every pair with both sides. */
export function summariseAll (scenarios: readonly Scenario[], totals: Map<string, Totals>): { results: Measured[], ratios: PairRatio[] } {
  const results = scenarios.map((scenario) => summarise(scenario, totals.get(keyOf(scenario)) as Totals))
  const ratios: PairRatio[] = []
  for (const gateway of results.filter((result) => result.side === 'gateway')) {
    const floor = results.find((result) => result.pair === gateway.pair && result.side === 'floor')
    if (floor === undefined) continue
    const paired = pairedRatios(totals.get(keyOf(gateway))?.requestsPerSecond ?? [], totals.get(keyOf(floor))?.requestsPerSecond ?? [])
    ratios.push({
      pair: gateway.pair,
      throughput: paired.median,
      perRound: paired.rounds,
      p99: round2(gateway.p99Ms / floor.p99Ms),
      serverCpu: round2(floor.serverCpuUsPerRequest / gateway.serverCpuUsPerRequest)
    })
  }
  return { results, ratios }
}

/** Every scenario that had an answer other than the expected one, with what it had. */
export function failuresOf (results: readonly Measured[]): string[] {
  return results.flatMap((result) => {
    const unexpected = Object.values(result.unexpected).reduce((sum, count) => sum + count, 0)
    if (unexpected === 0 && result.errors === 0 && result.timeouts === 0) return []
    return [`${result.pair}/${result.side}: statuses other than expected ${JSON.stringify(result.unexpected)}, ${result.errors} errors, ${result.timeouts} timeouts`]
  })
}
