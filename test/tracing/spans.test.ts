// Issue 15, item 3: a span per HTTP request continuing the caller's traceparent, and an
// execute_tool span per dispatch (REST, each call of a batch, MCP tools/call) with the tool, its
// call id, status, error code, truncation and duration; failures end in status ERROR. A real app
// with a real OTel tracer whose exporter keeps spans in memory.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { SpanKind, SpanStatusCode } from '@opentelemetry/api'
import type { ReadableSpan } from '@opentelemetry/sdk-trace'
import type { ToolContext } from '../../src/registry/types.ts'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'
import { CALLER_SPAN_ID, CALLER_TRACE_ID, CALLER_TRACEPARENT, hrMs, memoryTracer } from '../helpers/tracing.ts'
import { initializeMessage, rawRpc } from '../mcp-server/raw.ts'

function parentOf (span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId
}

test('POST /dispatch/:name: the request span continues the caller\'s traceparent and tracestate; the execute_tool span below it carries the tool, call id, status, truncation and duration', async (t) => {
  const memory = memoryTracer()
  const { app } = await buildTestApp(t, {}, { tracer: memory.tracer })
  let seen: ToolContext['traceHeaders']
  app.gateway.registry.register(fixtureTool('slow_big', {
    maxResultSizeChars: 100,
    handler: async (_args, ctx) => {
      seen = ctx.traceHeaders
      await sleep(30)
      return 'x'.repeat(1000)
    }
  }))
  const res = await app.inject({
    method: 'POST',
    url: '/dispatch/slow_big?unused=1',
    payload: {},
    headers: { traceparent: CALLER_TRACEPARENT, tracestate: 'vendor=abc', 'x-tool-call-id': 'call_42' }
  })
  assert.equal(res.statusCode, 200)
  assert.equal(res.json().truncated, true)

  const request = memory.only('POST /dispatch/:name')
  assert.equal(request.kind, SpanKind.SERVER)
  assert.equal(request.spanContext().traceId, CALLER_TRACE_ID, 'the caller\'s trace goes on')
  assert.equal(parentOf(request), CALLER_SPAN_ID)
  assert.equal(request.spanContext().traceState?.get('vendor'), 'abc')
  assert.deepEqual(request.attributes, { 'http.request.method': 'POST', 'url.path': '/dispatch/slow_big', 'http.route': '/dispatch/:name', 'http.response.status_code': 200 })
  assert.equal(request.status.code, SpanStatusCode.UNSET)

  const call = memory.only('execute_tool slow_big')
  assert.equal(call.kind, SpanKind.INTERNAL)
  assert.equal(call.spanContext().traceId, CALLER_TRACE_ID)
  assert.equal(parentOf(call), request.spanContext().spanId, 'the call hangs from its request')
  assert.equal(call.attributes['gen_ai.operation.name'], 'execute_tool')
  assert.equal(call.attributes['gen_ai.tool.name'], 'slow_big')
  assert.equal(call.attributes['gen_ai.tool.call.id'], 'call_42')
  assert.equal(call.attributes['tool_gateway.status'], 'ok')
  assert.equal(call.attributes['tool_gateway.truncated'], true)
  assert.equal(call.attributes['tool_gateway.original_length'], 1000)
  assert.ok((call.attributes['tool_gateway.duration_ms'] as number) >= 25)
  assert.ok(hrMs(call.duration) >= 25, `the span lasts the call (${hrMs(call.duration)} ms)`)
  assert.equal(call.status.code, SpanStatusCode.UNSET)
  assert.equal(call.attributes['error.type'], undefined)

  // The handler was given the call span's own context, for the requests it makes.
  assert.deepEqual(seen, { traceparent: `00-${CALLER_TRACE_ID}-${call.spanContext().spanId}-01`, tracestate: 'vendor=abc' })
})

test('failed calls: span status ERROR with the error code as error.type; a 4xx request span stays unset, the caller\'s fault', async (t) => {
  const memory = memoryTracer()
  const { app } = await buildTestApp(t, {}, { tracer: memory.tracer })
  app.gateway.registry.register(fixtureTool('throws', { handler: async () => { throw new Error('disk on fire') } }))
  app.gateway.registry.register(fixtureTool('typed', {
    schema: { parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }
  }))

  assert.equal((await app.inject({ method: 'POST', url: '/dispatch/throws', payload: {} })).statusCode, 200)
  const thrown = memory.only('execute_tool throws')
  assert.equal(thrown.status.code, SpanStatusCode.ERROR)
  assert.match(thrown.status.message ?? '', /disk on fire/)
  assert.equal(thrown.attributes['error.type'], 'GW_ERR_TOOL_FAILED')
  assert.equal(thrown.attributes['tool_gateway.status'], 'error')

  assert.equal((await app.inject({ method: 'POST', url: '/dispatch/typed', payload: { n: 'many' } })).statusCode, 400)
  const invalid = memory.only('execute_tool typed')
  assert.equal(invalid.status.code, SpanStatusCode.ERROR)
  assert.equal(invalid.attributes['error.type'], 'GW_ERR_INVALID_ARGUMENTS')
  assert.equal(invalid.attributes['tool_gateway.status'], 'invalid')

  assert.equal((await app.inject({ method: 'POST', url: '/dispatch/nope', payload: {} })).statusCode, 404)
  const unknown = memory.only('execute_tool nope')
  assert.equal(unknown.attributes['error.type'], 'GW_ERR_TOOL_NOT_FOUND')
  const requests = memory.spans().filter((span) => span.name === 'POST /dispatch/:name')
  assert.deepEqual(requests.map((span) => span.attributes['http.response.status_code']), [200, 400, 404])
  assert.ok(requests.every((span) => span.status.code === SpanStatusCode.UNSET))
  // No traceparent came: each request starts a trace of its own.
  assert.equal(new Set(requests.map((span) => span.spanContext().traceId)).size, 3)
  assert.ok(requests.every((span) => span.parentSpanContext === undefined))
})

test('a malformed traceparent is ignored: a new trace starts', async (t) => {
  const memory = memoryTracer()
  const { app } = await buildTestApp(t, {}, { tracer: memory.tracer })
  app.gateway.registry.register(fixtureTool('echo'))
  await app.inject({ method: 'POST', url: '/dispatch/echo', payload: {}, headers: { traceparent: '00-zz-00f067aa0ba902b7-01' } })
  const request = memory.only('POST /dispatch/:name')
  assert.equal(request.parentSpanContext, undefined)
  assert.match(request.spanContext().traceId, /^[0-9a-f]{32}$/)
})

test('a batch: one execute_tool span per call, each with its call id, all below the request span', async (t) => {
  const memory = memoryTracer()
  const { app } = await buildTestApp(t, {}, { tracer: memory.tracer })
  app.gateway.registry.register(fixtureTool('echo'))
  const res = await app.inject({
    method: 'POST',
    url: '/dispatch',
    headers: { traceparent: CALLER_TRACEPARENT },
    payload: {
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'echo', arguments: '{"text":"a"}' } },
        { id: 'call_b', type: 'function', function: { name: 'missing', arguments: '{}' } }
      ]
    }
  })
  assert.equal(res.statusCode, 200)
  const request = memory.only('POST /dispatch')
  const echo = memory.only('execute_tool echo')
  const missing = memory.only('execute_tool missing')
  for (const call of [echo, missing]) {
    assert.equal(parentOf(call), request.spanContext().spanId)
    assert.equal(call.spanContext().traceId, CALLER_TRACE_ID)
  }
  assert.equal(echo.attributes['gen_ai.tool.call.id'], 'call_a')
  assert.equal(missing.attributes['gen_ai.tool.call.id'], 'call_b')
  assert.equal(missing.status.code, SpanStatusCode.ERROR)
})

test('MCP tools/call at /mcp: below the HTTP request\'s span, or below the client\'s own span when it sends _meta.traceparent', async (t) => {
  const memory = memoryTracer()
  const { app } = await buildTestApp(t, {}, { tracer: memory.tracer })
  app.gateway.registry.register(fixtureTool('echo'))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/mcp`
  assert.equal((await rawRpc(url, initializeMessage())).status, 200)

  const call = (id: number, meta?: Record<string, string>): unknown => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' }, ...(meta ? { _meta: meta } : {}) } })
  const answer = await rawRpc(url, call(2), { traceparent: CALLER_TRACEPARENT })
  assert.equal(answer.message?.result?.isError, false)
  const requests = memory.spans().filter((span) => span.name === 'POST /mcp')
  const carrying = requests.find((span) => span.spanContext().traceId === CALLER_TRACE_ID)
  assert.ok(carrying !== undefined, 'the request span continues the header\'s trace')
  const viaHeader = memory.only('execute_tool echo')
  assert.equal(parentOf(viaHeader), carrying.spanContext().spanId)

  const clientTrace = '0af7651916cd43dd8448eb211c80319c'
  await rawRpc(url, call(3, { traceparent: `00-${clientTrace}-b7ad6b7169203331-01` }), { traceparent: CALLER_TRACEPARENT })
  const viaMeta = memory.spans().filter((span) => span.name === 'execute_tool echo')[1]
  assert.equal(viaMeta.spanContext().traceId, clientTrace)
  assert.equal(parentOf(viaMeta), 'b7ad6b7169203331')
})

test('probes and scrapes make no spans; other routes do', async (t) => {
  const memory = memoryTracer()
  const { app } = await buildTestApp(t, {}, { tracer: memory.tracer })
  for (const url of ['/healthz', '/readyz', '/metrics']) assert.equal((await app.inject(url)).statusCode, 200, url)
  assert.deepEqual(memory.spans(), [])
  await app.inject('/definitions')
  assert.deepEqual(memory.spans().map((span) => span.name), ['GET /definitions'])
})

test('sampling follows the caller (parentbased): a trace it did not sample records nothing, and says so downstream; a ratio of 0 records no new trace', async (t) => {
  const memory = memoryTracer({ sampler: 'parentbased_traceidratio', samplerArg: 0 })
  const { app } = await buildTestApp(t, {}, { tracer: memory.tracer })
  const seen: Array<ToolContext['traceHeaders']> = []
  app.gateway.registry.register(fixtureTool('echo', { handler: (_args, ctx) => { seen.push(ctx.traceHeaders); return 'ok' } }))
  const notSampled = `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-00`
  await app.inject({ method: 'POST', url: '/dispatch/echo', payload: {}, headers: { traceparent: notSampled } })
  await app.inject({ method: 'POST', url: '/dispatch/echo', payload: {} })
  assert.deepEqual(memory.spans(), [])
  assert.match(seen[0]?.traceparent ?? '', new RegExp(`^00-${CALLER_TRACE_ID}-[0-9a-f]{16}-00$`), 'the caller\'s trace goes on, unsampled')
  assert.match(seen[1]?.traceparent ?? '', /-00$/)

  await app.inject({ method: 'POST', url: '/dispatch/echo', payload: {}, headers: { traceparent: CALLER_TRACEPARENT } })
  assert.deepEqual(memory.spans().map((span) => span.name).sort(), ['POST /dispatch/:name', 'execute_tool echo'], 'a sampled caller is followed whatever the ratio')
})
