// Strict-mode definitions make optional properties nullable, so a model sends null for "left out":
// dispatch reads such a null as absent, over REST and MCP alike; a null for a required property, or
// one the schema itself allows, keeps its meaning.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'
import { toolResult } from '../../src/registry/tool-result.ts'
import { dropOptionalNulls } from '../../src/json-schema/optional-nulls.ts'

test('read_file with {"offset": null, "limit": null} reads from the start; a null path is still invalid', async (t) => {
  const { app } = await buildTestApp(t, {}, { builtins: true })
  const write = await app.inject({ method: 'POST', url: '/dispatch/write_file', payload: { path: 'notes.txt', content: 'one\ntwo\n' } })
  assert.equal(write.statusCode, 200, write.body)
  const read = await app.inject({ method: 'POST', url: '/dispatch/read_file', payload: { path: 'notes.txt', offset: null, limit: null } })
  assert.equal(read.statusCode, 200, read.body)
  assert.deepEqual(JSON.parse(read.json().content).content, '1|one\n2|two')
  const missing = await app.inject({ method: 'POST', url: '/dispatch/read_file', payload: { path: null, offset: null } })
  assert.equal(missing.statusCode, 400)
  assert.match(missing.json().content, /\/path: must be string/)
  const wrong = await app.inject({ method: 'POST', url: '/dispatch/read_file', payload: { path: 'notes.txt', offset: 'x' } })
  assert.equal(wrong.statusCode, 400, 'only null means absent')
})

const nested = fixtureTool('nested', {
  schema: {
    description: 'echoes its arguments',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        note: { type: ['string', 'null'] },
        options: { type: 'object', properties: { depth: { type: 'integer' }, label: { type: 'string' } }, required: ['label'] },
        rows: { type: 'array', items: { $ref: '#/$defs/row' } }
      },
      required: ['name'],
      $defs: { row: { type: 'object', properties: { id: { type: 'integer' }, tag: { type: 'string' } }, required: ['id'] } }
    }
  },
  handler: async (args) => toolResult({ args })
})

test('nested optional nulls are dropped too; a null the schema allows is kept', async (t) => {
  const { app } = await buildTestApp(t)
  app.gateway.registry.register(nested)
  const res = await app.inject({
    method: 'POST',
    url: '/dispatch/nested',
    payload: { name: 'n', note: null, options: { depth: null, label: 'l' }, rows: [{ id: 1, tag: null }, { id: 2, tag: 't' }] }
  })
  assert.equal(res.statusCode, 200, res.body)
  assert.deepEqual(JSON.parse(res.json().content).args, { name: 'n', note: null, options: { label: 'l' }, rows: [{ id: 1 }, { id: 2, tag: 't' }] })
  const required = await app.inject({ method: 'POST', url: '/dispatch/nested', payload: { name: 'n', options: { label: null } } })
  assert.equal(required.statusCode, 400)
  assert.match(required.json().content, /\/options\/label: must be string/)
})

test('over MCP (tools/call) the same null is absent', async (t) => {
  const { app } = await buildTestApp(t, { MCP_SESSION_IDLE_MS: '60000' })
  app.gateway.registry.register(nested)
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  const client = new Client({ name: 'nulls', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${address}/mcp`)))
  t.after(() => client.close())
  const result = await client.callTool({ name: 'nested', arguments: { name: 'n', options: null } })
  assert.equal(result.isError, false, JSON.stringify(result.content))
  assert.deepEqual(JSON.parse((result.content as Array<{ text: string }>)[0].text).args, { name: 'n' })
})

test('dropOptionalNulls returns the same object when there is nothing to drop, and never changes its input', () => {
  const schema = nested.schema.parameters
  const args = { name: 'n', rows: [{ id: 1 }] }
  assert.equal(dropOptionalNulls(args, schema), args)
  const withNull = Object.freeze({ name: 'n', options: null })
  assert.deepEqual(dropOptionalNulls(withNull, schema), { name: 'n' })
  assert.deepEqual(withNull, { name: 'n', options: null })
  assert.deepEqual(dropOptionalNulls({ name: null }, schema), { name: null }, 'required: kept, validation reports it')
  assert.deepEqual(dropOptionalNulls({ other: null }, schema), { other: null }, 'not a declared property: kept')
})
