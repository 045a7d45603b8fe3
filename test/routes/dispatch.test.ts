// POST /dispatch/:name: the envelope and the status table of API.md, one row each.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { toolError, toolResult } from '../../src/registry/tool-result.ts'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

const ENVELOPE_KEYS = ['callId', 'content', 'durationMs', 'ok', 'originalLength', 'status', 'tool', 'truncated']

async function setup (t: Parameters<typeof buildTestApp>[0], env: Record<string, string> = {}) {
  const built = await buildTestApp(t, env)
  const { registry, hooks } = built.app.gateway
  registry.register(fixtureTool('echo', {
    schema: { parameters: { type: 'object', properties: { text: { type: 'string' }, n: { type: 'integer' } }, required: ['text'] } },
    handler: async (args) => toolResult({ text: args.text, n: args.n ?? null })
  }))
  registry.register(fixtureTool('fails', { handler: async () => toolError('disk full') }))
  registry.register(fixtureTool('throws', { handler: async () => { throw new Error('kaboom') } }))
  registry.register(fixtureTool('slow', { timeoutMs: 50, handler: async () => new Promise<string>(() => {}) }))
  // A cap with room for head and tail beside the notice (which names the kept result: ~150 characters).
  registry.register(fixtureTool('big', { maxResultSizeChars: 300, handler: async () => 'x'.repeat(1000) }))
  registry.register(fixtureTool('offline', { checkFn: () => ({ available: false, reason: 'BRAVE_API_KEY is not set' }) }))
  registry.register(fixtureTool('guarded'))
  hooks.add('pre_tool_call', (event) => event.tool === 'guarded' ? { action: 'block', message: 'policy forbids guarded' } : undefined)
  return built
}

function post (app: Awaited<ReturnType<typeof setup>>['app'], name: string, payload: unknown, headers: Record<string, string> = {}) {
  return app.inject({ method: 'POST', url: `/dispatch/${name}`, payload: payload as string, headers: { 'content-type': 'application/json', ...headers } })
}

function assertEnvelope (body: Record<string, unknown>, ok: boolean): void {
  const keys = Object.keys(body).sort()
  assert.deepEqual(keys, ok ? ENVELOPE_KEYS : [...ENVELOPE_KEYS, 'error'].sort())
  assert.equal(typeof body.content, 'string')
  assert.ok(Number.isInteger(body.durationMs) && (body.durationMs as number) >= 0)
}

test('200 ok: arguments as an object or as a JSON string, call id echoed', async (t) => {
  const { app } = await setup(t)
  const res = await post(app, 'echo', { text: 'hé 🎉', n: '3' }, { 'x-tool-call-id': 'call_abc' })
  assert.equal(res.statusCode, 200)
  const body = res.json()
  assertEnvelope(body, true)
  assert.equal(body.tool, 'echo')
  assert.equal(body.callId, 'call_abc')
  assert.equal(body.status, 'ok')
  assert.deepEqual(JSON.parse(body.content), { text: 'hé 🎉', n: 3 }, 'the string "3" was coerced to the integer 3')
  const asString = await post(app, 'echo', JSON.stringify(JSON.stringify({ text: 'from a string' })))
  assert.equal(asString.statusCode, 200)
  assert.deepEqual(JSON.parse(asString.json().content), { text: 'from a string', n: null })
})

test('200 with ok false when the tool reports an error or throws', async (t) => {
  const { app } = await setup(t)
  for (const [name, message] of [['fails', 'disk full'], ['throws', 'Error: kaboom']]) {
    const res = await post(app, name, {})
    assert.equal(res.statusCode, 200, name)
    const body = res.json()
    assertEnvelope(body, false)
    assert.equal(body.status, 'error')
    assert.equal(body.error.code, 'GW_ERR_TOOL_FAILED')
    assert.equal(JSON.parse(body.content).error, message)
    assert.doesNotMatch(body.content, /\n\s+at /, 'no stack trace')
  }
})

test('400 invalid arguments names each failing path', async (t) => {
  const { app } = await setup(t)
  const res = await post(app, 'echo', { n: 'many' })
  assert.equal(res.statusCode, 400)
  const body = res.json()
  assertEnvelope(body, false)
  assert.equal(body.status, 'invalid')
  assert.equal(body.error.code, 'GW_ERR_INVALID_ARGUMENTS')
  assert.match(body.error.message, /\/text: is required/)
  assert.match(body.error.message, /\/n: must be integer/)
  assert.equal(JSON.parse(body.content).error, body.error.message)
  const notObject = await post(app, 'echo', JSON.stringify('[1,2]'))
  assert.equal(notObject.statusCode, 400)
  assert.match(notObject.json().error.message, /expected a JSON object, got an array/)
})

test('403 blocked by a pre-call hook carries the hook message', async (t) => {
  const { app } = await setup(t)
  const res = await post(app, 'guarded', {})
  assert.equal(res.statusCode, 403)
  const body = res.json()
  assertEnvelope(body, false)
  assert.equal(body.status, 'blocked')
  assert.equal(body.error.code, 'GW_ERR_BLOCKED')
  assert.equal(body.content, '{"error":"policy forbids guarded"}')
})

test('404 unknown tool', async (t) => {
  const { app } = await setup(t)
  const res = await post(app, 'nope', {})
  assert.equal(res.statusCode, 404)
  const body = res.json()
  assertEnvelope(body, false)
  assert.equal(body.status, 'not_found')
  assert.equal(body.error.code, 'GW_ERR_TOOL_NOT_FOUND')
  assert.equal(body.content, '{"error":"Unknown tool: nope"}')
})

test('503 unavailable tool gives the reason', async (t) => {
  const { app } = await setup(t)
  const res = await post(app, 'offline', {})
  assert.equal(res.statusCode, 503)
  const body = res.json()
  assert.equal(body.status, 'unavailable')
  assert.equal(body.error.code, 'GW_ERR_TOOL_UNAVAILABLE')
  assert.match(body.error.message, /BRAVE_API_KEY is not set/)
})

test('504 timeout', async (t) => {
  const { app } = await setup(t)
  const res = await post(app, 'slow', {})
  assert.equal(res.statusCode, 504)
  const body = res.json()
  assert.equal(body.status, 'timeout')
  assert.equal(body.error.code, 'GW_ERR_TIMEOUT')
  assert.match(body.content, /timed out after 50 ms/)
})

test('X-Tool-Timeout-Ms and X-Max-Result-Chars apply per call, capped by the configured maxima', async (t) => {
  const { app } = await setup(t, { MAX_TOOL_TIMEOUT_MS: '30', MAX_RESULT_CHARS: '200' })
  const capped = await post(app, 'slow', {}, { 'x-tool-timeout-ms': '999999' })
  assert.equal(capped.statusCode, 504)
  assert.match(capped.json().content, /after 30 ms/, 'the override is capped by MAX_TOOL_TIMEOUT_MS')
  const longer = await post(app, 'big', {}, { 'x-max-result-chars': '150' })
  const body = longer.json()
  assert.equal(body.truncated, true)
  assert.equal(body.originalLength, 1000)
  assert.ok(body.content.length <= 150)
  const ceiling = await post(app, 'big', {}, { 'x-max-result-chars': '5000' })
  assert.ok(ceiling.json().content.length <= 200, 'capped by MAX_RESULT_CHARS')
  const bad = await post(app, 'big', {}, { 'x-max-result-chars': 'lots' })
  assert.equal(bad.statusCode, 400)
  assert.match(bad.json().error.message, /x-max-result-chars/i)
})

test('truncation keeps head and tail and reports the original length', async (t) => {
  const { app } = await setup(t)
  const body = (await post(app, 'big', {})).json()
  assert.equal(body.ok, true)
  assert.equal(body.truncated, true)
  assert.equal(body.originalLength, 1000)
  assert.ok(body.content.length <= 300)
  assert.match(body.content, /^x+\n\n\[\.\.\. truncated \d+ of 1000 characters; .*\]\n\nx+$/)
})
