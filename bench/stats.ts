// The figures of a benchmark run: per scenario (mean req/s, latency percentiles, CPU per request)
// and the ratios of each gateway scenario to its baseline, paired round by round.
import type { Scenario, Totals } from './measure.ts'

export interface Measured {
  scenario: string
  description: string
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  bytesPerSecond: number
  totalRequests: number
  /** Server CPU time (user + system) per answered request over the measured periods. */
  serverCpuUsPerRequest: number
}

export interface Paired { median: number, rounds: number[] }

/** The ratios a run reports, each a gateway scenario over the one it is compared with; `target`: held to the project's target. */
export const RATIOS = [
  { key: 'b/a', numerator: 'b', denominator: 'a', label: 'b/a, dispatch vs bare Fastify', target: true },
  { key: 'c/c0', numerator: 'c', denominator: 'c0', label: 'c/c0, definitions vs static bytes', target: true },
  { key: "c'/c0", numerator: "c'", denominator: 'c0', label: "c'/c0, 304 revalidation vs static bytes", target: false },
  { key: 'd/d0', numerator: 'd', denominator: 'd0', label: 'd/d0, MCP tools/call read_file vs bare JSON-RPC route', target: false },
  { key: "d/b'", numerator: 'd', denominator: "b'", label: "d/b', MCP tools/call vs REST dispatch, same read_file", target: false },
  { key: 'e/e0', numerator: 'e', denominator: 'e0', label: 'e/e0, MCP tools/list (500 tools) vs static bytes', target: false }
] as const

export type RatioKey = typeof RATIOS[number]['key']

function mean (values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length
}

/** The nearest-rank percentile of sorted values, in ms rounded to 0.01. */
function percentile (sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN
  const value = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
  return Math.round(value * 100) / 100
}

function median (values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

function summarise (scenario: Scenario, totals: Totals): Measured {
  totals.latencies.sort((x, y) => x - y)
  return {
    scenario: scenario.key,
    description: scenario.description,
    requestsPerSecond: Math.round(mean(totals.requestsPerSecond)),
    p50Ms: percentile(totals.latencies, 0.5),
    p99Ms: percentile(totals.latencies, 0.99),
    bytesPerSecond: Math.round(mean(totals.bytesPerSecond)),
    totalRequests: totals.requests,
    serverCpuUsPerRequest: Math.round(totals.cpuUs / totals.requests * 10) / 10
  }
}

/** Paired ratios: round i of the gateway over round i of its baseline (same trial), then their median. */
function pairedRatio (numerator: Totals, denominator: Totals): Paired {
  const rounds = numerator.requestsPerSecond.map((value, i) => Math.round(value / denominator.requestsPerSecond[i] * 100) / 100)
  return { median: Math.round(median(rounds) * 100) / 100, rounds }
}

/** Each scenario's figures by key, and the paired ratios of the gateway scenarios that ran to their baselines. */
export function summariseAll (scenarios: readonly Scenario[], totals: Map<string, Totals>): { results: Record<string, Measured>, paired: Partial<Record<RatioKey, Paired>> } {
  const results: Record<string, Measured> = {}
  for (const scenario of scenarios) results[scenario.key] = summarise(scenario, totals.get(scenario.key) as Totals)
  const paired: Partial<Record<RatioKey, Paired>> = {}
  for (const { key, numerator, denominator } of RATIOS) {
    const top = totals.get(numerator)
    const bottom = totals.get(denominator)
    if (top !== undefined && bottom !== undefined) paired[key] = pairedRatio(top, bottom)
  }
  return { results, paired }
}

function ratio (numerator: Measured, denominator: Measured, paired: Paired) {
  return {
    /** The target's figure: the median of the per-round paired ratios of req/s. */
    requestsPerSecond: paired.median,
    perRound: paired.rounds,
    ofMeans: Math.round(numerator.requestsPerSecond / denominator.requestsPerSecond * 100) / 100,
    // The baseline's CPU per request over the gateway's: the same ratio, free of the load generator.
    serverCpu: Math.round(denominator.serverCpuUsPerRequest / numerator.serverCpuUsPerRequest * 100) / 100
  }
}

export type Ratio = ReturnType<typeof ratio>

export function ratiosOf (results: Record<string, Measured>, paired: Partial<Record<RatioKey, Paired>>): Partial<Record<RatioKey, Ratio>> {
  const ratios: Partial<Record<RatioKey, Ratio>> = {}
  for (const { key, numerator, denominator } of RATIOS) {
    const rounds = paired[key]
    if (rounds !== undefined) ratios[key] = ratio(results[numerator], results[denominator], rounds)
  }
  return ratios
}
