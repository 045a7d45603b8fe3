// Issue 15, item 3: with the standard OTEL_* variables set, spans are exported over OTLP/HTTP to a
// real receiver on loopback, with the configured headers and service name, and closing the gateway
// flushes what the batch still held (no span lost at shutdown). The configuration maps the
// variables, which win over the file's `tracing:` section.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { buildApp } from '../../src/app/app.ts'
import { loadConfig } from '../../src/config/load.ts'
import { InvalidConfigError } from '../../src/shared/errors.ts'
import { createLogger } from '../../src/app/logger.ts'
import { tracesUrlOf } from '../../src/tracing/start.ts'
import { captureLogger } from '../helpers/logger.ts'
import { fixtureTool } from '../helpers/tools.ts'
import { CALLER_TRACE_ID, CALLER_TRACEPARENT } from '../helpers/tracing.ts'

interface Export { path: string, headers: IncomingHttpHeaders, body: string, at: number }

/** A tiny OTLP/HTTP receiver: records every POST and answers 200 {}. */
async function receiver (t: TestContext): Promise<{ url: string, exports: Export[] }> {
  const exports: Export[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw
      exports.push({ path: req.url ?? '', headers: req.headers, body: body.toString('utf8'), at: performance.now() })
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, exports }
}

interface OtlpSpan { name: string, traceId: string, attributes: Array<{ key: string, value: Record<string, unknown> }> }
interface OtlpBody { resourceSpans: Array<{ resource: { attributes: Array<{ key: string, value: { stringValue?: string } }> }, scopeSpans: Array<{ spans: OtlpSpan[] }> }> }

test('OTEL_EXPORTER_OTLP_ENDPOINT: spans are POSTed to its /v1/traces with OTEL_EXPORTER_OTLP_HEADERS and OTEL_SERVICE_NAME, and closing flushes them', async (t) => {
  const otlp = await receiver(t)
  const dir = await mkdtemp(join(tmpdir(), 'gw-otlp-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const env = {
    TOOLS_DIR: dir,
    WORKSPACE_ROOT: join(dir, 'workspace'),
    OTEL_EXPORTER_OTLP_ENDPOINT: `${otlp.url}/`,
    OTEL_EXPORTER_OTLP_HEADERS: 'x-otlp-key=s3cr%20et, x-team=tools',
    OTEL_SERVICE_NAME: 'gw-under-test'
  }
  const config = await loadConfig({ env, cwd: dir })
  const log = captureLogger('info')
  const app = await buildApp(config, { logger: createLogger(config, log.stream), env })
  app.gateway.registry.register(fixtureTool('echo'))
  const res = await app.inject({ method: 'POST', url: '/dispatch/echo', payload: { text: 'hi' }, headers: { traceparent: CALLER_TRACEPARENT } })
  assert.equal(res.statusCode, 200)
  // The batch exports every few seconds: nothing has gone yet; the close must send it.
  assert.equal(otlp.exports.length, 0)
  await app.close()

  assert.equal(otlp.exports.length, 1)
  const [sent] = otlp.exports
  assert.equal(sent.path, '/v1/traces')
  assert.equal(sent.headers['x-otlp-key'], 's3cr et')
  assert.equal(sent.headers['x-team'], 'tools')
  const body = JSON.parse(sent.body) as OtlpBody
  const resource = body.resourceSpans[0].resource.attributes
  assert.equal(resource.find((a) => a.key === 'service.name')?.value.stringValue, 'gw-under-test')
  const spans = body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))
  assert.deepEqual(spans.map((s) => s.name).sort(), ['POST /dispatch/:name', 'execute_tool echo'])
  assert.ok(spans.every((s) => s.traceId.toLowerCase() === CALLER_TRACE_ID), 'the ids are the caller\'s trace (hex in OTLP/JSON)')
  const call = spans.find((s) => s.name === 'execute_tool echo')
  assert.deepEqual(call?.attributes.find((a) => a.key === 'gen_ai.tool.name')?.value, { stringValue: 'echo' })
  assert.ok(log.lines().some((line) => line.msg === 'tracing: spans exported over OTLP/HTTP' && line.url === `${otlp.url}/v1/traces`))
})

test('tracing configuration: the OTEL_* variables over the file\'s tracing section; off without an endpoint or with OTEL_SDK_DISABLED', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-otel-config-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'gw.yaml'), [
    'tracing:',
    '  endpoint: http://collector.internal:4318',
    '  headers: { authorization: Bearer from-file, x-keep: kept }',
    '  serviceName: from-file',
    ''
  ].join('\n'))
  const file = { GATEWAY_CONFIG: join(dir, 'gw.yaml') }

  const fromFile = (await loadConfig({ env: file, cwd: dir })).tracing
  assert.equal(tracesUrlOf(fromFile), 'http://collector.internal:4318/v1/traces')
  assert.equal(fromFile.sampler, 'parentbased_always_on')

  const overridden = (await loadConfig({
    env: {
      ...file,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://vendor.example/otlp/traces',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20from-env',
      OTEL_SERVICE_NAME: 'from-env',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25'
    },
    cwd: dir
  })).tracing
  assert.equal(tracesUrlOf(overridden), 'https://vendor.example/otlp/traces', 'the traces endpoint is used as given')
  assert.deepEqual(overridden.headers, { authorization: 'Bearer from-env', 'x-keep': 'kept' })
  assert.equal(overridden.serviceName, 'from-env')
  assert.equal(overridden.sampler, 'parentbased_traceidratio')
  assert.equal(overridden.samplerArg, 0.25)

  assert.equal(tracesUrlOf((await loadConfig({ env: { ...file, OTEL_SDK_DISABLED: 'true' }, cwd: dir })).tracing), undefined)
  assert.equal(tracesUrlOf((await loadConfig({ env: {}, cwd: dir })).tracing), undefined, 'no endpoint: no tracing')

  await assert.rejects(loadConfig({ env: { OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign' }, cwd: dir }), (err: Error) => err instanceof InvalidConfigError && /OTEL_EXPORTER_OTLP_HEADERS/.test(err.message))
  await assert.rejects(loadConfig({ env: { OTEL_TRACES_SAMPLER: 'sometimes' }, cwd: dir }), /OTEL_TRACES_SAMPLER/)
  await assert.rejects(loadConfig({ env: { OTEL_TRACES_SAMPLER_ARG: '2' }, cwd: dir }), /OTEL_TRACES_SAMPLER_ARG/)
  await assert.rejects(loadConfig({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, cwd: dir }), /OTEL_EXPORTER_OTLP_ENDPOINT/)
})

test('the other standard variables: OTEL_BSP_SCHEDULE_DELAY sends the batch that soon, OTEL_RESOURCE_ATTRIBUTES, the traces-specific headers and gzip', async (t) => {
  const otlp = await receiver(t)
  const dir = await mkdtemp(join(tmpdir(), 'gw-otlp-bsp-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const env = {
    TOOLS_DIR: dir,
    WORKSPACE_ROOT: join(dir, 'workspace'),
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_HEADERS: 'x-general=general',
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-traces=traces',
    OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'gzip',
    OTEL_BSP_SCHEDULE_DELAY: '200',
    OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=staging,service.name=from-resource,service.namespace=tools'
  }
  const config = await loadConfig({ env, cwd: dir })
  const app = await buildApp(config, { logger: createLogger(config, captureLogger('info').stream), env })
  t.after(() => app.close())
  app.gateway.registry.register(fixtureTool('echo'))
  const called = performance.now()
  assert.equal((await app.inject({ method: 'POST', url: '/dispatch/echo', payload: { text: 'hi' } })).statusCode, 200)
  const deadline = called + 3_000
  while (otlp.exports.length === 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  assert.equal(otlp.exports.length, 1, 'exported without a close, well before the default 5 s')
  const [sent] = otlp.exports
  assert.ok(sent.at - called < 2_000, `exported ${Math.round(sent.at - called)} ms after the call`)
  assert.equal(sent.headers['content-encoding'], 'gzip')
  assert.equal(sent.headers['x-traces'], 'traces', 'the traces-specific headers win')
  assert.equal(sent.headers['x-general'], undefined)
  const resource = Object.fromEntries((JSON.parse(sent.body) as OtlpBody).resourceSpans[0].resource.attributes.map((a) => [a.key, a.value.stringValue]))
  assert.equal(resource['deployment.environment'], 'staging')
  assert.equal(resource['service.namespace'], 'tools')
  assert.equal(resource['service.name'], 'from-resource', 'without OTEL_SERVICE_NAME, the resource attributes name the service')
})

test('OTEL_TRACES_EXPORTER=none turns tracing off; transports and values the gateway cannot honour are refused naming the variable', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-otel-refused-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.internal:4318' }
  assert.equal(tracesUrlOf((await loadConfig({ env: { ...endpoint, OTEL_TRACES_EXPORTER: 'none' }, cwd: dir })).tracing), undefined)
  assert.equal((await loadConfig({ env: { ...endpoint, OTEL_BSP_MAX_QUEUE_SIZE: '64', OTEL_BSP_EXPORT_TIMEOUT: '700' }, cwd: dir })).tracing.batch.maxQueueSize, 64)
  for (const [name, value] of [
    ['OTEL_TRACES_EXPORTER', 'zipkin'],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
    ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'grpc'],
    ['OTEL_EXPORTER_OTLP_COMPRESSION', 'brotli'],
    ['OTEL_BSP_SCHEDULE_DELAY', 'soon'],
    ['OTEL_BSP_MAX_QUEUE_SIZE', '0'],
    ['OTEL_RESOURCE_ATTRIBUTES', 'no-equals-sign']
  ]) {
    await assert.rejects(loadConfig({ env: { ...endpoint, [name]: value }, cwd: dir }), (err: Error) => err instanceof InvalidConfigError && err.message.includes(name), `${name}=${value}`)
  }
})
