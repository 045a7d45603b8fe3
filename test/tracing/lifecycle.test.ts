// Issue 15, item 3, the edges of a trace: a client that goes away mid-call still leaves both spans
// ended (the request's in ERROR, the call's cancelled), and a receiver that cannot be reached
// costs a warning in the log, never a failed call.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { request as httpRequest, createServer } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SpanStatusCode } from '@opentelemetry/api'
import { buildApp } from '../../src/app/app.ts'
import { loadConfig } from '../../src/config/load.ts'
import { createLogger } from '../../src/app/logger.ts'
import { buildTestApp } from '../helpers/app.ts'
import { captureLogger } from '../helpers/logger.ts'
import { fixtureTool } from '../helpers/tools.ts'
import { memoryTracer } from '../helpers/tracing.ts'
import { until } from '../mcp-client/helpers/wait.ts'

test('a client that goes away mid-call: the request span ends in ERROR, the call span as cancelled', async (t) => {
  const memory = memoryTracer()
  const { app } = await buildTestApp(t, {}, { tracer: memory.tracer })
  let started!: () => void
  const running = new Promise<void>((resolve) => { started = resolve })
  app.gateway.registry.register(fixtureTool('wait', {
    handler: (_args, ctx) => new Promise((resolve) => {
      started()
      ctx.signal.addEventListener('abort', () => resolve('stopped'), { once: true })
    })
  }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const req = httpRequest({ port, host: '127.0.0.1', method: 'POST', path: '/dispatch/wait', headers: { 'content-type': 'application/json' } })
  req.on('error', () => {})
  req.end('{}')
  await running
  req.destroy()

  await until(() => memory.spans().length === 2, 'both spans ended', 5_000)
  const call = memory.only('execute_tool wait')
  assert.equal(call.attributes['tool_gateway.status'], 'cancelled')
  assert.equal(call.status.code, SpanStatusCode.ERROR)
  const request = memory.only('POST /dispatch/:name')
  assert.equal(request.status.code, SpanStatusCode.ERROR)
  assert.equal(request.attributes['error.type'], 'client_aborted')
})

test('an OTLP receiver that refuses: calls answer as usual, and the log says spans could not be exported', async (t) => {
  // A port that was free a moment ago: nothing listens there.
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  const dir = await mkdtemp(join(tmpdir(), 'gw-otlp-down-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const env = { TOOLS_DIR: dir, WORKSPACE_ROOT: join(dir, 'workspace'), OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}/v1/traces`, OTEL_EXPORTER_OTLP_TIMEOUT: '300' }
  const config = await loadConfig({ env, cwd: dir })
  const log = captureLogger('info')
  const app = await buildApp(config, { logger: createLogger(config, log.stream), env })
  app.gateway.registry.register(fixtureTool('echo'))
  const res = await app.inject({ method: 'POST', url: '/dispatch/echo', payload: {} })
  assert.equal(res.statusCode, 200)
  assert.equal(res.json().ok, true)
  await app.close()
  const warning = log.lines().find((line) => line.msg === 'tracing: spans could not be exported (the next failures within a minute are not logged)')
  assert.ok(warning !== undefined, 'the failed export is logged')
  assert.equal(warning.spans, 2)
  assert.equal(warning.url, `http://127.0.0.1:${port}/v1/traces`)
})
