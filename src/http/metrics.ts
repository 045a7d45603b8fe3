// Prometheus metrics of one app, in a registry of its own (several apps may share a process in tests).
// Tool calls are counted in plain objects and handed to prom-client when /metrics is scraped: its
// inc/observe hash the label values on every call, a cost that showed under load (bench/README.md).
import fp from 'fastify-plugin'
import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric } from 'prom-client'
import type { DispatchOutcome } from '../dispatch/outcome.ts'

export interface GatewayMetrics {
  registry: Registry
  /** Counts a call in (in-flight gauge). */
  callStarted: () => void
  /** Counts a call out and records its outcome (none: the dispatch failed, a bug the log shows). */
  callEnded: (outcome: DispatchOutcome | undefined) => void
  definitionsServed: (status: number) => void
}

const DURATION_NAME = 'gateway_tool_call_duration_seconds'
const DURATION_HELP = 'Time spent in the gateway per tool call, by tool.'
const DURATION_BUCKETS = [0.001, 0.005, 0.025, 0.1, 0.25, 1, 2.5, 10, 30, 60, 300]

/** One tool's calls since start: counts by status, and the duration histogram. */
class ToolStats {
  readonly byStatus = new Map<string, number>()
  /** Non-cumulative counts per bucket; the last one is +Inf. */
  readonly buckets = new Float64Array(DURATION_BUCKETS.length + 1)
  sum = 0
  count = 0

  record (status: string, seconds: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1)
    let bucket = 0
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]) bucket++
    this.buckets[bucket]++
    this.sum += seconds
    this.count++
  }
}

/**
 * The duration histogram as prom-client reads a metric when it renders the registry: prom-client
 * has no way to hand a Histogram counts kept elsewhere, so this object answers `get()` itself.
 */
function durationHistogram (stats: ReadonlyMap<string, ToolStats>) {
  return {
    name: DURATION_NAME,
    help: DURATION_HELP,
    type: 'histogram',
    aggregator: 'sum',
    reset () {},
    async get () {
      const values: Array<{ metricName: string, labels: Record<string, string | number>, value: number }> = []
      for (const [tool, entry] of stats) {
        let cumulative = 0
        for (let i = 0; i <= DURATION_BUCKETS.length; i++) {
          cumulative += entry.buckets[i]
          values.push({ metricName: `${DURATION_NAME}_bucket`, labels: { le: i < DURATION_BUCKETS.length ? DURATION_BUCKETS[i] : '+Inf', tool }, value: cumulative })
        }
        values.push({ metricName: `${DURATION_NAME}_sum`, labels: { tool }, value: entry.sum })
        values.push({ metricName: `${DURATION_NAME}_count`, labels: { tool }, value: entry.count })
      }
      return { name: DURATION_NAME, help: DURATION_HELP, type: 'histogram', aggregator: 'sum', values }
    }
  }
}

export function createMetrics (): GatewayMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const stats = new Map<string, ToolStats>()
  let inFlight = 0

  // eslint-disable-next-line no-new -- registered in `registry`, read through it
  new Counter({
    name: 'gateway_tool_calls_total',
    help: 'Tool calls by tool and outcome status.',
    labelNames: ['tool', 'status'] as const,
    registers: [registry],
    collect () {
      this.reset()
      for (const [tool, entry] of stats) {
        for (const [status, count] of entry.byStatus) this.inc({ tool, status }, count)
      }
    }
  })
  registry.registerMetric(durationHistogram(stats) as unknown as Metric)
  // eslint-disable-next-line no-new -- registered in `registry`, read through it
  new Gauge({
    name: 'gateway_tool_calls_in_flight',
    help: 'Tool calls running now.',
    registers: [registry],
    collect () { this.set(inFlight) }
  })
  const served = new Counter({
    name: 'gateway_definitions_served_total',
    help: 'GET /definitions answers, by HTTP status (304 = the client had them).',
    labelNames: ['status'] as const,
    registers: [registry]
  })
  return {
    registry,
    callStarted () {
      inFlight++
    },
    callEnded (outcome) {
      inFlight--
      if (outcome === undefined) return
      // Unknown names would let any caller grow the label set without bound.
      const tool = outcome.status === 'not_found' ? '(unknown)' : outcome.tool
      let entry = stats.get(tool)
      if (entry === undefined) {
        entry = new ToolStats()
        stats.set(tool, entry)
      }
      entry.record(outcome.status, outcome.durationMs / 1000)
    },
    definitionsServed (status) {
      served.inc({ status: String(status) })
    }
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: GatewayMetrics
  }
}

export default fp(async function metrics (app) {
  app.decorate('metrics', createMetrics())
}, { name: 'metrics' })
