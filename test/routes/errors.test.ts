// Every error answers JSON; dispatch routes answer the envelope; a 5xx never carries internals.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

test('an unknown route is a JSON 404', async (t) => {
  const { app } = await buildTestApp(t)
  const res = await app.inject('/nowhere?x=1')
  assert.equal(res.statusCode, 404)
  assert.deepEqual(res.json(), { statusCode: 404, code: 'GW_ERR_NOT_FOUND', error: 'Not Found', message: 'no route GET /nowhere' })
})

test('a body over the limit is 413, as the envelope on dispatch', async (t) => {
  const { app } = await buildTestApp(t, { BODY_LIMIT_BYTES: '2048' })
  app.gateway.registry.register(fixtureTool('echo'))
  const res = await app.inject({ method: 'POST', url: '/dispatch/echo', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ text: 'x'.repeat(5000) }) })
  assert.equal(res.statusCode, 413)
  const body = res.json()
  assert.equal(body.error.code, 'GW_ERR_BODY_TOO_LARGE')
  assert.equal(body.tool, 'echo')
  assert.equal(body.ok, false)
  assert.match(JSON.parse(body.content).error, /larger than the limit of 2048 bytes/)
})

test('a non-JSON body is 415', async (t) => {
  const { app } = await buildTestApp(t)
  app.gateway.registry.register(fixtureTool('echo'))
  const res = await app.inject({ method: 'POST', url: '/dispatch/echo', headers: { 'content-type': 'text/plain' }, payload: 'hello' })
  assert.equal(res.statusCode, 415)
  assert.equal(res.json().error.code, 'GW_ERR_UNSUPPORTED_MEDIA_TYPE')
  assert.match(res.json().content, /application\/json/)
  const batch = await app.inject({ method: 'POST', url: '/dispatch', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'a=1' })
  assert.equal(batch.statusCode, 415)
})

test('malformed JSON and proto-poisoned bodies are 400 with a readable content', async (t) => {
  const { app } = await buildTestApp(t)
  app.gateway.registry.register(fixtureTool('echo'))
  const broken = await app.inject({ method: 'POST', url: '/dispatch/echo', headers: { 'content-type': 'application/json' }, payload: '{"text": ' })
  assert.equal(broken.statusCode, 400)
  assert.equal(broken.json().error.code, 'GW_ERR_BAD_REQUEST')
  assert.match(JSON.parse(broken.json().content).error, /not valid JSON/)
  // The escaped spelling is the same key once parsed.
  for (const payload of ['{"__proto__": {"polluted": true}}', '{"constructor": {"prototype": {"polluted": true}}}', '{"\\u005f_proto__": {"polluted": true}}']) {
    const res = await app.inject({ method: 'POST', url: '/dispatch/echo', headers: { 'content-type': 'application/json' }, payload })
    assert.equal(res.statusCode, 400, payload)
    assert.match(res.json().error.message, /forbidden "__proto__" or "constructor"/)
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined)
  // The words in a value, or a JSON string of arguments, are no poisoning; null is JSON, but not arguments.
  for (const payload of ['"{\\"text\\": \\"hi\\"}"', '{"text": "a \\"__proto__\\" in a value"}']) {
    const res = await app.inject({ method: 'POST', url: '/dispatch/echo', headers: { 'content-type': 'application/json' }, payload })
    assert.equal(res.statusCode, 200, `${payload}: ${res.body}`)
  }
  const nothing = await app.inject({ method: 'POST', url: '/dispatch/echo', headers: { 'content-type': 'application/json' }, payload: 'null' })
  assert.equal(nothing.statusCode, 400)
  assert.match(nothing.json().error.message, /body must be object/)
})

test('a validation error on an ordinary route is a JSON 400', async (t) => {
  const { app } = await buildTestApp(t)
  const res = await app.inject('/tools?unexpected=1')
  assert.equal(res.statusCode, 400)
  assert.equal(res.json().code, 'GW_ERR_BAD_REQUEST')
  const batch = await app.inject({ method: 'POST', url: '/dispatch', payload: { tool_calls: 'nope' } })
  assert.equal(batch.statusCode, 400)
  assert.equal(batch.json().ok, false, 'the envelope on the batch route')
})

test('an unexpected fault is a generic 500, logged with the request id', async (t) => {
  const { app, log } = await buildTestApp(t)
  // Break something the route needs, as a bug would.
  app.gateway.catalog.describe = () => { throw new Error('secret internal detail /etc/shadow') }
  const res = await app.inject({ url: '/toolsets', headers: { 'x-request-id': 'req-fault-1' } })
  assert.equal(res.statusCode, 500)
  const body = res.json()
  assert.equal(body.code, 'GW_ERR_INTERNAL')
  assert.doesNotMatch(res.body, /secret internal detail|shadow|at /)
  assert.match(body.message, /req-fault-1/)
  const line = log.lines().find((l) => l.msg === 'unexpected fault')
  assert.equal(line?.reqId, 'req-fault-1')
  assert.match(JSON.stringify(line?.err), /secret internal detail/)
})

test('every answer carries the request id, errors included: 404, 413, 415, 400, 503 while draining', async (t) => {
  const { app } = await buildTestApp(t, { BODY_LIMIT_BYTES: '1024' })
  const big = JSON.stringify({ text: 'x'.repeat(2000) })
  const cases = [
    { method: 'GET' as const, url: '/nowhere', status: 404 },
    { method: 'POST' as const, url: '/dispatch/echo', payload: big, headers: { 'content-type': 'application/json' }, status: 413 },
    { method: 'POST' as const, url: '/dispatch/echo', payload: 'hi', headers: { 'content-type': 'text/plain' }, status: 415 },
    { method: 'POST' as const, url: '/dispatch/echo', payload: '{"a":', headers: { 'content-type': 'application/json' }, status: 400 }
  ]
  for (const [i, { status, headers, ...request }] of cases.entries()) {
    const res = await app.inject({ ...request, headers: { ...headers, 'x-request-id': `req-${i}` } })
    assert.equal(res.statusCode, status, `${request.method} ${request.url}`)
    assert.equal(res.headers['x-request-id'], `req-${i}`, `status ${status}`)
  }
  app.lifecycle.beginDrain()
  const refused = await app.inject({ method: 'POST', url: '/dispatch/echo', payload: {}, headers: { 'x-request-id': 'req-drain' } })
  assert.equal(refused.statusCode, 503)
  assert.equal(refused.headers['x-request-id'], 'req-drain')
  assert.equal(refused.headers['retry-after'], '5')
  // Routes that run no tool still answer while draining.
  const tools = await app.inject({ url: '/tools', headers: { 'x-request-id': 'req-tools' } })
  assert.equal(tools.statusCode, 200)
  assert.equal(tools.headers['x-request-id'], 'req-tools')
})
