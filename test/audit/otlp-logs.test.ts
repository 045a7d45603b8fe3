// The audit trail as OpenTelemetry log records, to a real OTLP/HTTP receiver on loopback: each line
// one record whose body is the line (no argument value in it), POSTed to /v1/logs under the OTLP
// endpoint with its headers and the service name, or to OTEL_EXPORTER_OTLP_LOGS_ENDPOINT; closing
// the gateway sends what is left; AUDIT_OTLP without a receiver refuses to start, naming what to set.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../../src/app/app.ts'
import { createLogger } from '../../src/app/logger.ts'
import { loadConfig } from '../../src/config/load.ts'
import { captureLogger } from '../helpers/logger.ts'
import { fixtureTool } from '../helpers/tools.ts'

interface Export { path: string, headers: IncomingHttpHeaders, body: string }
interface OtlpLogs {
  resourceLogs: Array<{
    resource: { attributes: Array<{ key: string, value: { stringValue?: string } }> }
    scopeLogs: Array<{ logRecords: Array<{ body: { stringValue: string }, severityText: string, attributes: Array<{ key: string, value: { stringValue?: string } }> }> }>
  }>
}

async function receiver (t: TestContext): Promise<{ url: string, exports: Export[] }> {
  const exports: Export[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      exports.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, exports }
}

async function gateway (t: TestContext, extra: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), 'gw-audit-otlp-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const env = { TOOLS_DIR: dir, WORKSPACE_ROOT: join(dir, 'workspace'), STATE_DIR: join(dir, 'state'), AUDIT_OTLP: 'true', ...extra }
  const config = await loadConfig({ env, cwd: dir })
  return { config, env, log: captureLogger('info') }
}

function records (exports: Export[]): Array<{ line: Record<string, unknown>, type: string | undefined, service: string | undefined }> {
  return exports.filter((sent) => sent.path === '/v1/logs').flatMap((sent) => {
    const body = JSON.parse(sent.body) as OtlpLogs
    return body.resourceLogs.flatMap((resource) => {
      const service = resource.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue
      return resource.scopeLogs.flatMap((scope) => scope.logRecords.map((record) => ({
        line: JSON.parse(record.body.stringValue) as Record<string, unknown>,
        type: record.attributes.find((a) => a.key === 'audit.type')?.value.stringValue,
        service
      })))
    })
  })
}

test('AUDIT_OTLP: each audit line is a log record at /v1/logs under the OTLP endpoint, with its headers and service name; closing sends them', async (t) => {
  const otlp = await receiver(t)
  const { config, env, log } = await gateway(t, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_HEADERS: 'x-otlp-key=k1', OTEL_SERVICE_NAME: 'gw-audit' })
  const app = await buildApp(config, { logger: createLogger(config, log.stream), env })
  app.gateway.registry.register(fixtureTool('echo'))
  const secret = 'an argument value that must stay out of the trail'
  assert.equal((await app.inject({ method: 'POST', url: '/dispatch/echo', payload: { text: secret } })).statusCode, 200)
  assert.equal((await app.inject({ method: 'POST', url: '/dispatch/echo', payload: { text: 'two' } })).statusCode, 200)
  await app.close()

  const sent = records(otlp.exports)
  const calls = sent.filter((record) => record.type === 'call')
  assert.equal(calls.length, 2, JSON.stringify(sent))
  for (const { line, service } of calls) {
    assert.equal(line.tool, 'echo')
    assert.equal(line.status, 'ok')
    assert.match(String(line.argsDigest), /^sha256:[0-9a-f]{64}$/)
    assert.equal(service, 'gw-audit')
  }
  assert.ok(!otlp.exports.some((e) => e.body.includes(secret)), 'no argument value leaves in a record')
  assert.equal(otlp.exports.find((e) => e.path === '/v1/logs')?.headers['x-otlp-key'], 'k1')
})

test('OTEL_EXPORTER_OTLP_LOGS_ENDPOINT takes the records alone; AUDIT_OTLP without any receiver does not start, naming what to set', async (t) => {
  const otlp = await receiver(t)
  const own = await gateway(t, { OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: `${otlp.url}/custom/logs` })
  const app = await buildApp(own.config, { logger: createLogger(own.config, own.log.stream), env: own.env })
  app.gateway.registry.register(fixtureTool('echo'))
  await app.inject({ method: 'POST', url: '/dispatch/echo', payload: { text: 'x' } })
  await app.close()
  assert.deepEqual([...new Set(otlp.exports.map((e) => e.path))], ['/custom/logs'])

  const none = await gateway(t, {})
  await assert.rejects(buildApp(none.config, { logger: createLogger(none.config, none.log.stream), env: none.env }), /needs a receiver: set OTEL_EXPORTER_OTLP_LOGS_ENDPOINT/)
})
