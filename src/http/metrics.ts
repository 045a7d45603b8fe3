// Prometheus metrics of one app, in a registry of its own (several apps may share a process in tests).
import fp from 'fastify-plugin'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { DispatchOutcome } from '../dispatch/call/outcome.ts'
import { CallHistory } from './call-history.ts'

export interface GatewayMetrics {
  registry: Registry
  /** Counts a call in (in-flight gauge). */
  callStarted: () => void
  /** Counts a call out and records its outcome (none: the dispatch failed, a bug the log shows). */
  callEnded: (outcome: DispatchOutcome | undefined) => void
  definitionsServed: (status: number) => void
  /** The last minutes of calls per tool, for the console's charts (GET /metrics/history). */
  history: CallHistory
}

export function createMetrics (history: CallHistory = new CallHistory()): GatewayMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const calls = new Counter({
    name: 'gateway_tool_calls_total',
    help: 'Tool calls by tool and outcome status.',
    labelNames: ['tool', 'status'] as const,
    registers: [registry]
  })
  const duration = new Histogram({
    name: 'gateway_tool_call_duration_seconds',
    help: 'Time spent in the gateway per tool call, by tool.',
    labelNames: ['tool'] as const,
    buckets: [0.001, 0.005, 0.025, 0.1, 0.25, 1, 2.5, 10, 30, 60, 300],
    registers: [registry]
  })
  const inFlight = new Gauge({
    name: 'gateway_tool_calls_in_flight',
    help: 'Tool calls running now.',
    registers: [registry]
  })
  const served = new Counter({
    name: 'gateway_definitions_served_total',
    help: 'GET /definitions answers, by HTTP status (304 = the client had them).',
    labelNames: ['status'] as const,
    registers: [registry]
  })
  return {
    registry,
    history,
    callStarted () {
      inFlight.inc()
    },
    callEnded (outcome) {
      inFlight.dec()
      if (outcome === undefined) return
      // Unknown names would let any caller grow the label set without bound.
      const tool = outcome.status === 'not_found' ? '(unknown)' : outcome.tool
      calls.inc({ tool, status: outcome.status })
      duration.observe({ tool }, outcome.durationMs / 1000)
      history.record(tool, outcome.status === 'ok', outcome.durationMs)
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
  const metrics = createMetrics()
  const { redis } = app
  if (redis !== undefined) {
    // For an alert on the degradation that /readyz reports but does not fail on.
    const gauge = new Gauge({
      name: 'gateway_redis_connected',
      help: '1 while the shared Redis (REDIS_URL) is used, 0 while this replica serves from memory.',
      registers: [metrics.registry],
      collect () { gauge.set(redis.connected ? 1 : 0) }
    })
  }
  app.decorate('metrics', metrics)
}, { name: 'metrics', dependencies: ['shared-state'] })
