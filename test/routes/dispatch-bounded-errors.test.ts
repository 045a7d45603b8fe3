// Issue 11, item 10: error content is bounded. A validation error names the first failures and
// counts the rest, so a large invalid body never comes back many times larger; every error body
// of the HTTP edge is bounded too.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

const MAX_ERROR_BODY_BYTES = 8_000

async function setup (t: Parameters<typeof buildTestApp>[0]) {
  const built = await buildTestApp(t)
  built.app.gateway.registry.register(fixtureTool('numbers', {
    schema: { parameters: { type: 'object', properties: { values: { type: 'array', items: { type: 'integer' } } }, required: ['values'] } }
  }))
  return built
}

test('an array of 5 000 failing items answers a bounded message: the first failures and how many more', async (t) => {
  const { app } = await setup(t)
  const values = Array.from({ length: 5_000 }, (_, i) => `not-a-number-${i}`)
  const res = await app.inject({ method: 'POST', url: '/dispatch/numbers', payload: JSON.stringify({ values }), headers: { 'content-type': 'application/json' } })
  assert.equal(res.statusCode, 400)
  assert.ok(res.body.length < MAX_ERROR_BODY_BYTES, `error body of ${res.body.length} bytes`)
  assert.match(res.json().error.message, /\/values\/0: must be integer.*and 4990 more failures/)
})

test('an array of 50 000 failing items answers its first failure only: collecting them all would cost more than the call', async (t) => {
  const { app } = await setup(t)
  const values = Array.from({ length: 50_000 }, (_, i) => `not-a-number-${i}`)
  const payload = JSON.stringify({ values })
  const res = await app.inject({ method: 'POST', url: '/dispatch/numbers', payload, headers: { 'content-type': 'application/json' } })
  assert.equal(res.statusCode, 400)
  assert.ok(res.body.length < MAX_ERROR_BODY_BYTES, `error body of ${res.body.length} bytes for a ${payload.length}-byte request`)
  const body = res.json()
  assert.equal(body.status, 'invalid')
  assert.equal(body.error.message, 'invalid arguments: /values/0: must be integer (the first failure found; the arguments hold more than 10000 values, so they were not all checked) (tool numbers)')
  assert.equal(JSON.parse(body.content).error, body.error.message)
})

test('a failure with an enormous enum or property name is cut, not echoed whole', async (t) => {
  const { app } = await setup(t)
  const allowed = Array.from({ length: 5_000 }, (_, i) => `choice-${i}`)
  app.gateway.registry.register(fixtureTool('pick', {
    schema: { parameters: { type: 'object', properties: { v: { enum: allowed } }, additionalProperties: false } }
  }))
  const res = await app.inject({
    method: 'POST', url: '/dispatch/pick', payload: { v: 'nope', ['k'.repeat(100_000)]: 1 }, headers: { 'content-type': 'application/json' }
  })
  assert.equal(res.statusCode, 400)
  assert.ok(res.body.length < MAX_ERROR_BODY_BYTES, `error body of ${res.body.length} bytes`)
  assert.match(res.json().error.message, /\/v: must be equal to one of the allowed values \("choice-0", "choice-1"/)
})

test('an error body of the HTTP edge is bounded: a huge Content-Type is not echoed whole', async (t) => {
  const { app } = await setup(t)
  const res = await app.inject({
    method: 'POST', url: '/dispatch/numbers', payload: 'x', headers: { 'content-type': `text/plain; junk=${'j'.repeat(60_000)}` }
  })
  assert.equal(res.statusCode, 415)
  assert.ok(res.body.length < MAX_ERROR_BODY_BYTES, `error body of ${res.body.length} bytes`)
  assert.match(res.json().error.message, /Content-Type: application\/json/)
})

test('a 404 for an enormous URL does not echo the URL whole', async (t) => {
  const { app } = await setup(t)
  const res = await app.inject({ method: 'GET', url: `/${'u'.repeat(60_000)}` })
  assert.equal(res.statusCode, 404)
  assert.ok(res.body.length < MAX_ERROR_BODY_BYTES, `error body of ${res.body.length} bytes`)
  assert.match(res.json().message, /^no route GET \/uuu/)
})

test('a Fastify body-schema failure on a batch answers a bounded message', async (t) => {
  const { app } = await setup(t)
  const res = await app.inject({
    method: 'POST', url: '/dispatch', payload: { tool_calls: [{ id: 'c', type: 'function', function: { name: 'x'.repeat(200_000), arguments: '{}' } }] }
  })
  assert.ok(res.statusCode >= 400 && res.statusCode < 500, `status ${res.statusCode}`)
  assert.ok(res.body.length < MAX_ERROR_BODY_BYTES, `error body of ${res.body.length} bytes`)
})
