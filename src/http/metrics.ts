// Prometheus metrics of one app, in a registry of its own (several apps may share a process in tests).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { DispatchOutcome } from '../dispatch/outcome.ts'

export interface GatewayMetrics {
  registry: Registry
  /** Counts a call in (in-flight gauge); the returned function records its outcome. */
  callStarted: () => (outcome: DispatchOutcome) => void
  definitionsServed: (status: number) => void
}

export function createMetrics (): GatewayMetrics {
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
  const inFlight = new Gauge({ name: 'gateway_tool_calls_in_flight', help: 'Tool calls running now.', registers: [registry] })
  const served = new Counter({
    name: 'gateway_definitions_served_total',
    help: 'GET /definitions answers, by HTTP status (304 = the client had them).',
    labelNames: ['status'] as const,
    registers: [registry]
  })
  // Label children looked up once per (tool, status): prom-client hashes label objects on every
  // inc/observe otherwise, on the hot path of every call.
  const children = new Map<string, { calls: ReturnType<typeof calls.labels>, duration: ReturnType<typeof duration.labels> }>()
  function childrenOf (tool: string, status: string) {
    const key = `${tool}\n${status}`
    let found = children.get(key)
    if (found === undefined) {
      found = { calls: calls.labels(tool, status), duration: duration.labels(tool) }
      children.set(key, found)
    }
    return found
  }
  return {
    registry,
    callStarted () {
      inFlight.inc()
      return (outcome) => {
        inFlight.dec()
        // Unknown names would let any caller grow the label set without bound.
        const tool = outcome.status === 'not_found' ? '(unknown)' : outcome.tool
        const child = childrenOf(tool, outcome.status)
        child.calls.inc()
        child.duration.observe(outcome.durationMs / 1000)
      }
    },
    definitionsServed (status) {
      served.inc({ status: String(status) })
    }
  }
}
