// Response serializers are built on their route's first answer, not at start
// (src/http/lazy-serializers.ts): nothing is compiled before, and what answers is what Fastify's
// default serializer writes (fields the schema does not name are left out).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import Fastify from 'fastify'
import { lazySerializerFactory } from '../../src/http/lazy-serializers.ts'

const RESPONSE = { type: 'object', properties: { count: { type: 'integer' }, name: { type: 'string' } } }
// fast-json-stringify refuses this schema when it builds the function: a build is observable.
const UNRESOLVABLE = { type: 'object', properties: { count: { $ref: '#/definitions/missing' } } }

function routeSerializer (schema: unknown): (data: unknown) => string {
  const compile = lazySerializerFactory()({}, {})
  return compile({ schema, method: 'GET', url: '/thing', httpStatus: '200' })
}

test('the function is built on its first call, not when Fastify asks for it', () => {
  const serialize = routeSerializer(UNRESOLVABLE)
  assert.throws(() => serialize({ count: 1 }), /missing/)
})

test('it writes what the default serializer writes, call after call', () => {
  const serialize = routeSerializer(RESPONSE)
  for (let i = 0; i < 2; i++) {
    assert.equal(serialize({ count: 2, name: 'n', secret: 'not in the schema' }), '{"count":2,"name":"n"}')
  }
})

test('in an app: a route answers through its schema; a schema never used costs the start nothing', async (t) => {
  const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory() } } })
  t.after(() => app.close())
  app.get('/thing', { schema: { response: { 200: RESPONSE, 500: UNRESOLVABLE } } }, async () => ({ count: 3, secret: 's' }))
  await app.ready()
  const response = await app.inject({ method: 'GET', url: '/thing' })
  assert.equal(response.statusCode, 200)
  assert.equal(response.body, '{"count":3}')
})
