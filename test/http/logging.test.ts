// Logging through the gateway's own pino logger (createLogger with a capturing stream): one request
// id on every line of a request, honoured from X-Request-Id and echoed; exactly one "tool call"
// line per call; secret arguments and credentials redacted.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app/app.ts'
import { loadConfig } from '../../src/config/load.ts'
import { createLogger } from '../../src/app/logger.ts'
import { toolError, toolResult } from '../../src/registry/tool-result.ts'
import { captureLogger, type CapturedLogger } from '../helpers/logger.ts'
import { fixtureTool } from '../helpers/tools.ts'

interface TestContext { after: (fn: () => Promise<void> | void) => void }

type Line = Record<string, unknown>

/** An app logging at `level` into a capture, with the given config file (YAML) if any. */
async function loggedApp (t: TestContext, level: string, yaml?: string, env: Record<string, string> = {}): Promise<{ app: FastifyInstance, log: CapturedLogger }> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-logging-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await mkdir(join(dir, 'tools'))
  const fileEnv: Record<string, string> = {}
  if (yaml !== undefined) {
    await writeFile(join(dir, 'gateway.yaml'), yaml)
    fileEnv.GATEWAY_CONFIG = join(dir, 'gateway.yaml')
  }
  const config = await loadConfig({
    cwd: dir,
    env: { ...env, ...fileEnv, TOOLS_DIR: join(dir, 'tools'), WORKSPACE_ROOT: join(dir, 'workspace'), LOG_LEVEL: level }
  })
  const log = captureLogger()
  const app = await buildApp(config, { logger: createLogger(config, log.stream), env })
  t.after(() => app.close())
  app.gateway.registry.register(fixtureTool('echo', {
    handler: async (args, ctx) => {
      // A line from inside the tool: it must carry the request id too.
      ctx.logger.info({ step: 'inside' }, 'echo working')
      return toolResult({ echoed: args.text ?? null })
    }
  }))
  app.gateway.registry.register(fixtureTool('fail', { handler: async () => toolError('it broke') }))
  app.gateway.registry.register(fixtureTool('big', { maxResultSizeChars: 200, handler: async () => 'x'.repeat(1000) }))
  return { app, log }
}

/** The lines written since `from` lines had been written. */
function linesSince (log: CapturedLogger, from: number): Line[] {
  return log.lines().slice(from)
}

test('every line of a dispatch request carries the request id, which X-Request-Id sets and the response echoes', async (t) => {
  const { app, log } = await loggedApp(t, 'info')
  const before = log.lines().length
  const response = await app.inject({
    method: 'POST',
    url: '/dispatch/echo',
    headers: { 'x-request-id': 'req-from-client-42', 'x-tool-call-id': 'call_a' },
    payload: { text: 'hi' }
  })
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers['x-request-id'], 'req-from-client-42')
  const lines = linesSince(log, before)
  // incoming request, the tool's own line, tool call, request completed
  assert.deepEqual(lines.map((line) => line.msg), ['incoming request', 'echo working', 'tool call', 'request completed'])
  for (const line of lines) assert.equal(line.reqId, 'req-from-client-42', JSON.stringify(line))
  const inside = lines.find((line) => line.msg === 'echo working')!
  assert.equal(inside.callId, 'call_a')
  assert.equal(inside.tool, 'echo')
})

test('without X-Request-Id the gateway makes one, logs it on every line and returns it', async (t) => {
  const { app, log } = await loggedApp(t, 'info')
  const ids = new Set<string>()
  for (let i = 0; i < 2; i++) {
    const before = log.lines().length
    const response = await app.inject({ method: 'POST', url: '/dispatch/echo', payload: { text: String(i) } })
    const id = response.headers['x-request-id'] as string
    assert.match(id, /^[0-9a-f-]{36}$/)
    const lines = linesSince(log, before)
    assert.ok(lines.length >= 3)
    for (const line of lines) assert.equal(line.reqId, id)
    ids.add(id)
  }
  assert.equal(ids.size, 2, 'each request gets its own id')
  // Non-dispatch routes echo it too, and error answers as well.
  const missing = await app.inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': 'req-404' } })
  assert.equal(missing.statusCode, 404)
  assert.equal(missing.headers['x-request-id'], 'req-404')
})

test('exactly one "tool call" line per call, with tool, callId, status, durationMs and truncated', async (t) => {
  const { app, log } = await loggedApp(t, 'info')
  const cases = [
    { tool: 'echo', callId: 'call_ok', status: 'ok', truncated: false },
    { tool: 'fail', callId: 'call_err', status: 'error', truncated: false },
    { tool: 'big', callId: 'call_big', status: 'ok', truncated: true },
    { tool: 'ghost', callId: 'call_ghost', status: 'not_found', truncated: false }
  ]
  for (const expected of cases) {
    const before = log.lines().length
    const response = await app.inject({
      method: 'POST',
      url: `/dispatch/${expected.tool}`,
      headers: { 'x-tool-call-id': expected.callId },
      payload: {}
    })
    const calls = linesSince(log, before).filter((line) => line.msg === 'tool call')
    assert.equal(calls.length, 1, expected.tool)
    const [line] = calls
    assert.equal(line.level, 30)
    assert.equal(line.tool, expected.tool)
    assert.equal(line.callId, expected.callId)
    assert.equal(line.status, expected.status)
    assert.equal(line.truncated, expected.truncated)
    assert.ok(Number.isInteger(line.durationMs) && (line.durationMs as number) >= 0, String(line.durationMs))
    assert.equal(line.durationMs, response.json().durationMs)
    assert.equal(line.reqId, response.headers['x-request-id'])
  }
  // Each key once in the raw JSON: log stores such as Elasticsearch refuse duplicate fields.
  const raw = log.text().split('\n').filter((text) => text.includes('"msg":"tool call"'))
  assert.equal(raw.length, cases.length)
  for (const text of raw) {
    for (const key of ['tool', 'callId', 'reqId', 'status', 'durationMs', 'truncated']) {
      assert.equal(text.split(`"${key}":`).length - 1, 1, `${key} in ${text}`)
    }
  }
})

test('a batch logs one "tool call" line per call, all under the batch request\'s id', async (t) => {
  const { app, log } = await loggedApp(t, 'info')
  const before = log.lines().length
  const response = await app.inject({
    method: 'POST',
    url: '/dispatch',
    headers: { 'x-request-id': 'req-batch' },
    payload: {
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'echo', arguments: '{"text":"a"}' } },
        { id: 'c2', type: 'function', function: { name: 'fail', arguments: '{}' } },
        { id: 'c3', type: 'function', function: { name: 'echo', arguments: '{"text":"b"}' } }
      ]
    }
  })
  assert.equal(response.statusCode, 200)
  const lines = linesSince(log, before)
  for (const line of lines) assert.equal(line.reqId, 'req-batch')
  const calls = lines.filter((line) => line.msg === 'tool call')
  assert.deepEqual(calls.map((line) => [line.callId, line.tool, line.status]).sort(), [['c1', 'echo', 'ok'], ['c2', 'fail', 'error'], ['c3', 'echo', 'ok']])
})

const SECRET_CONFIG = 'logging:\n  secretArguments: [password, api-key]\n'

test('at debug, arguments named in logging.secretArguments are logged as [redacted] and their values never appear', async (t) => {
  const { app, log } = await loggedApp(t, 'debug', SECRET_CONFIG)
  app.gateway.registry.register(fixtureTool('login', {
    schema: {
      description: 'Logs in',
      parameters: {
        type: 'object',
        properties: { user: { type: 'string' }, password: { type: 'string' }, 'api-key': { type: 'string' }, nested: { type: 'object' } }
      }
    },
    handler: async (args) => toolResult({ user: args.user })
  }))
  const before = log.lines().length
  const response = await app.inject({
    method: 'POST',
    url: '/dispatch/login',
    headers: { 'x-request-id': 'req-login' },
    payload: { user: 'ada', password: 'pw-hunter2-xyz', 'api-key': 'ak-0f9e8d7c', nested: { password: 'pw-nested-abc' } }
  })
  assert.equal(response.statusCode, 200)
  const lines = linesSince(log, before)
  const argsLines = lines.filter((line) => line.msg === 'tool call arguments')
  assert.equal(argsLines.length, 1)
  assert.equal(argsLines[0].level, 20)
  assert.equal(argsLines[0].reqId, 'req-login')
  assert.deepEqual(argsLines[0].args, { user: 'ada', password: '[redacted]', 'api-key': '[redacted]', nested: { password: '[redacted]' } })
  const text = log.text()
  for (const secret of ['pw-hunter2-xyz', 'ak-0f9e8d7c', 'pw-nested-abc']) assert.ok(!text.includes(secret), `the log contains ${secret}`)
})

test('secret arguments stay redacted when the call is refused as invalid', async (t) => {
  const { app, log } = await loggedApp(t, 'debug', SECRET_CONFIG)
  app.gateway.registry.register(fixtureTool('strict', {
    schema: {
      description: 'Needs a number',
      parameters: { type: 'object', properties: { password: { type: 'string' }, count: { type: 'integer' } }, required: ['count'] }
    }
  }))
  const response = await app.inject({ method: 'POST', url: '/dispatch/strict', payload: JSON.stringify({ password: 'pw-invalid-call-77', count: 'many' }), headers: { 'content-type': 'application/json' } })
  assert.equal(response.statusCode, 400)
  assert.ok(log.lines().some((line) => line.msg === 'tool call' && line.status === 'invalid'))
  assert.ok(!log.text().includes('pw-invalid-call-77'))
})

test('without secretArguments in the config, arguments are logged as sent (redaction is what hides them)', async (t) => {
  const { app, log } = await loggedApp(t, 'debug')
  await app.inject({ method: 'POST', url: '/dispatch/echo', payload: { text: 'plain-visible-value' } })
  const line = log.lines().find((l) => l.msg === 'tool call arguments')
  assert.deepEqual(line?.args, { text: 'plain-visible-value' })
})

test('at info, arguments are not logged at all', async (t) => {
  const { app, log } = await loggedApp(t, 'info')
  await app.inject({ method: 'POST', url: '/dispatch/echo', payload: { text: 'info-level-value' } })
  assert.ok(log.lines().some((l) => l.msg === 'tool call'))
  assert.ok(!log.text().includes('info-level-value'))
})

test('the authorization header is redacted wherever request headers are logged', async (t) => {
  const key = 'redact-me-key-31415926'
  const yaml = `auth:\n  keys:\n    - { name: ops, sha256: ${createHash('sha256').update(key).digest('hex')} }\n`
  const { app, log } = await loggedApp(t, 'debug', yaml)
  // The two ways a request's headers reach a log line: the request itself (Fastify's serializer)
  // and the headers object as is. onResponse runs for refused requests too.
  app.addHook('onResponse', async (request) => {
    request.log.debug({ req: request }, 'the request')
    request.log.debug({ headers: request.headers }, 'the headers')
  })
  const wrong = 'not-the-key-27182818'
  for (const authorization of [`Bearer ${key}`, `Bearer ${wrong}`]) {
    const response = await app.inject({ method: 'GET', url: '/tools', headers: { authorization, 'x-api-key': key, 'x-other': 'visible' } })
    assert.equal(response.statusCode, authorization.includes(key) ? 200 : 401)
  }
  const lines = log.lines()
  const requests = lines.filter((line) => line.msg === 'the request')
  const headers = lines.filter((line) => line.msg === 'the headers')
  assert.equal(requests.length, 2)
  assert.equal(headers.length, 2)
  for (const line of requests) assert.equal((line.req as Line).url, '/tools')
  for (const line of headers) {
    assert.deepEqual(line.headers, {
      authorization: '[redacted]',
      'x-api-key': '[redacted]',
      'x-other': 'visible',
      'user-agent': 'lightMyRequest',
      host: 'localhost:80'
    })
  }
  const text = log.text()
  assert.ok(!text.includes(key), 'the key is in the log')
  assert.ok(!text.includes(wrong), 'the wrong key is in the log')
})
