// One bad tool in a server's tools/list must not cost the server its other tools: each tool is
// normalised on its own (an empty, missing or null inputSchema becomes an empty object schema, a
// missing type is inferred), one that cannot be repaired is left out with its reason in /tools.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buildTestApp } from '../helpers/app.ts'
import { writeScriptedServer } from './helpers/scripted-server.ts'
import { connectScripted } from './helpers/scripted-harness.ts'

const DEEP = (() => {
  let schema: Record<string, unknown> = { type: 'string' }
  for (let i = 0; i < 100; i++) schema = { type: 'object', properties: { inner: schema } }
  return schema
})()

const TOOLS = [
  { name: 'empty', description: 'empty schema', inputSchema: {} },
  { name: 'missing', description: 'no schema at all' },
  { name: 'nulled', description: 'null schema', inputSchema: null },
  { name: 'untyped', description: 'properties without a type', inputSchema: { properties: { word: { type: 'string' } }, required: ['word'] } },
  { name: 'good', description: 'a proper tool', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } },
  { name: 'too_deep', description: 'a schema nested past every budget', inputSchema: DEEP },
  { description: 'a tool without a name', inputSchema: { type: 'object' } },
  'not a tool'
]

test('a tools/list with broken schemas keeps the server connected with every tool that can be repaired', async (t) => {
  const { h } = await connectScripted(t, TOOLS)

  const names = [...h.registry.snapshot().tools.keys()].sort()
  assert.deepEqual(names, ['mcp__raw__empty', 'mcp__raw__good', 'mcp__raw__missing', 'mcp__raw__nulled', 'mcp__raw__untyped'])
  for (const name of ['mcp__raw__empty', 'mcp__raw__missing', 'mcp__raw__nulled']) {
    assert.deepEqual(h.registry.getEntry(name)!.schema.parameters, { type: 'object', properties: {} }, name)
  }
  assert.equal(h.registry.getEntry('mcp__raw__untyped')!.schema.parameters.type, 'object', 'the missing type is inferred')

  const called = await h.call('mcp__raw__untyped', { word: 'hi' })
  assert.equal(called.status, 'ok', called.content)
  assert.equal(called.content, '{"word":"hi"}')
  assert.equal((await h.call('mcp__raw__untyped', {})).status, 'invalid', 'the repaired schema still validates')

  const status = h.manager.states()[0]
  assert.equal(status.state, 'connected')
  const leftOut = new Map(status.toolsLeftOut.map((item) => [item.tool, item.reason]))
  assert.match(leftOut.get('too_deep') ?? '', /input schema refused/)
  assert.match(leftOut.get('#6') ?? '', /no name/)
  assert.match(leftOut.get('#7') ?? '', /not an object/)
  assert.equal(leftOut.size, 3)
})

test('GET /tools names the tools of a server that were left out, with the reason', async (t) => {
  const scripted = await writeScriptedServer(TOOLS)
  t.after(() => rm(scripted.dir, { recursive: true, force: true }))
  const configFile = join(scripted.dir, 'gw.json')
  await writeFile(configFile, JSON.stringify({ mcpServers: { raw: scripted.config } }))
  const { app } = await buildTestApp(t, { GATEWAY_CONFIG: configFile })

  const report = (await app.inject('/tools')).json() as { mcpServers: Array<{ server: string, state: string, tools: number, toolsLeftOut: Array<{ tool: string, reason: string }> }> }
  const raw = report.mcpServers.find((s) => s.server === 'raw')!
  assert.equal(raw.state, 'connected')
  assert.equal(raw.tools, 5)
  assert.deepEqual(raw.toolsLeftOut.map((item) => item.tool), ['#6', '#7', 'too_deep'])
  assert.match(raw.toolsLeftOut[2].reason, /input schema refused: it is nested deeper than 64 levels/)
})
