// Tool-call metrics are counted in plain objects and rendered by prom-client at scrape time: the
// text must be what prom-client's own Counter, Gauge and Histogram would have written.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Histogram, Registry } from 'prom-client'
import { createMetrics } from '../../src/http/metrics.ts'
import type { DispatchOutcome, DispatchStatus } from '../../src/dispatch/call/outcome.ts'

function outcome (tool: string, status: DispatchStatus, durationMs: number): DispatchOutcome {
  return { tool, callId: 'call_x', ok: status === 'ok', status, content: '{}', truncated: false, originalLength: 2, durationMs }
}

function linesOf (text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(name) || line.startsWith(`# HELP ${name} `) || line.startsWith(`# TYPE ${name} `))
}

test('metrics: the duration histogram reads exactly as a prom-client Histogram fed the same calls', async () => {
  const metrics = createMetrics()
  const referenceRegistry = new Registry()
  const reference = new Histogram({
    name: 'gateway_tool_call_duration_seconds',
    help: 'Time spent in the gateway per tool call, by tool.',
    labelNames: ['tool'],
    buckets: [0.001, 0.005, 0.025, 0.1, 0.25, 1, 2.5, 10, 30, 60, 300],
    registers: [referenceRegistry]
  })
  const calls: Array<[string, DispatchStatus, number]> = [
    ['read_file', 'ok', 0], ['read_file', 'ok', 1], ['read_file', 'error', 3], ['read_file', 'ok', 2500],
    ['terminal', 'timeout', 600_000], ['terminal', 'ok', 100], ['missing', 'not_found', 0]
  ]
  for (const [tool, status, ms] of calls) {
    metrics.callStarted()
    metrics.callEnded(outcome(tool, status, ms))
    reference.observe({ tool: status === 'not_found' ? '(unknown)' : tool }, ms / 1000)
  }
  const ours = linesOf(await metrics.registry.metrics(), 'gateway_tool_call_duration_seconds')
  const expected = linesOf(await referenceRegistry.metrics(), 'gateway_tool_call_duration_seconds')
  assert.equal(expected.length, 3 * (11 + 1 + 2) + 2, 'three tools: 12 buckets, sum and count each, plus HELP and TYPE')
  assert.deepEqual(ours.sort(), expected.sort())
})

test('metrics: calls by tool and status, unknown tools under one label, the in-flight gauge', async () => {
  const metrics = createMetrics()
  for (const status of ['ok', 'ok', 'error', 'invalid'] as const) {
    metrics.callStarted()
    metrics.callEnded(outcome('read_file', status, 1))
  }
  for (const name of ['nope_1', 'nope_2']) {
    metrics.callStarted()
    metrics.callEnded(outcome(name, 'not_found', 0))
  }
  metrics.callStarted()
  metrics.callStarted()
  let text = await metrics.registry.metrics()
  assert.deepEqual(linesOf(text, 'gateway_tool_calls_total{').sort(), [
    'gateway_tool_calls_total{tool="(unknown)",status="not_found"} 2',
    'gateway_tool_calls_total{tool="read_file",status="error"} 1',
    'gateway_tool_calls_total{tool="read_file",status="invalid"} 1',
    'gateway_tool_calls_total{tool="read_file",status="ok"} 2'
  ])
  assert.deepEqual(linesOf(text, 'gateway_tool_calls_in_flight '), ['gateway_tool_calls_in_flight 2'])
  metrics.callEnded(outcome('read_file', 'ok', 1))
  metrics.callEnded(undefined)
  text = await metrics.registry.metrics()
  assert.deepEqual(linesOf(text, 'gateway_tool_calls_in_flight '), ['gateway_tool_calls_in_flight 0'])
  assert.deepEqual(linesOf(text, 'gateway_tool_calls_total{tool="read_file",status="ok"}'), ['gateway_tool_calls_total{tool="read_file",status="ok"} 3'])
  // Scraping twice does not double the counts (the collector resets before it copies).
  text = await metrics.registry.metrics()
  assert.deepEqual(linesOf(text, 'gateway_tool_calls_total{tool="read_file",status="ok"}'), ['gateway_tool_calls_total{tool="read_file",status="ok"} 3'])
  assert.match(text, /# TYPE gateway_tool_call_duration_seconds histogram/)
  assert.deepEqual((await metrics.registry.getMetricsAsJSON()).map((metric) => metric.name).filter((name) => name.startsWith('gateway_')).sort(), [
    'gateway_definitions_served_total', 'gateway_tool_call_duration_seconds', 'gateway_tool_calls_in_flight', 'gateway_tool_calls_total'
  ])
})
