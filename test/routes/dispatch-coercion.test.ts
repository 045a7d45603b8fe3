// Issue 11, item 4: coercion over HTTP follows REFERENCE §7 for nullable arrays and union types.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { toolResult } from '../../src/registry/tool-result.ts'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

async function setup (t: Parameters<typeof buildTestApp>[0]) {
  const built = await buildTestApp(t)
  built.app.gateway.registry.register(fixtureTool('echo_args', {
    schema: {
      parameters: {
        type: 'object',
        properties: {
          tags: { type: 'array', items: { type: 'string' }, nullable: true },
          limit: { type: ['integer', 'string'] },
          label: { type: ['string', 'integer'] }
        }
      }
    },
    handler: async (args) => toolResult(args)
  }))
  return built
}

function post (app: Awaited<ReturnType<typeof setup>>['app'], payload: unknown) {
  return app.inject({ method: 'POST', url: '/dispatch/echo_args', payload: payload as string, headers: { 'content-type': 'application/json' } })
}

test('"null" for a nullable array reaches the tool as null, not ["null"]', async (t) => {
  const { app } = await setup(t)
  const res = await post(app, { tags: 'null' })
  assert.equal(res.statusCode, 200)
  assert.deepEqual(JSON.parse(res.json().content), { tags: null })
})

test('a union is tried in its listed order: "42" for [integer, string] is 42, for [string, integer] stays "42"', async (t) => {
  const { app } = await setup(t)
  const res = await post(app, JSON.stringify(JSON.stringify({ limit: '42', label: '42' })))
  assert.equal(res.statusCode, 200)
  assert.deepEqual(JSON.parse(res.json().content), { limit: 42, label: '42' })
  const word = await post(app, { limit: 'all' })
  assert.deepEqual(JSON.parse(word.json().content), { limit: 'all' }, 'a string no earlier type takes stays a string')
})

test('a valid string is converted by an earlier union type only when the result still validates', async (t) => {
  const { app } = await buildTestApp(t)
  app.gateway.registry.register(fixtureTool('flags', {
    schema: { parameters: { type: 'object', properties: { v: { type: ['array', 'string'], items: { type: 'boolean' } } } } },
    handler: async (args) => toolResult(args)
  }))
  const post = (payload: unknown) => app.inject({ method: 'POST', url: '/dispatch/flags', payload: payload as string, headers: { 'content-type': 'application/json' } })
  const parsed = await post({ v: '[true, "false"]' })
  assert.deepEqual(JSON.parse(parsed.json().content), { v: [true, false] })
  const kept = await post({ v: '[1, 2]' })
  assert.equal(kept.statusCode, 200, 'the string was valid; [1, 2] would not be')
  assert.deepEqual(JSON.parse(kept.json().content), { v: '[1, 2]' })
})
