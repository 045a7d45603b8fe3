// GET /tools, /tools/:name and /toolsets: what works, what does not, and why.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

async function setup (t: Parameters<typeof buildTestApp>[0]) {
  const built = await buildTestApp(t, { TOOL_TIMEOUT_MS: '45000' })
  const { registry } = built.app.gateway
  registry.register(fixtureTool('read_file', { toolset: 'file', emoji: '📖', maxResultSizeChars: 5000 }))
  registry.register(fixtureTool('web_search', {
    toolset: 'web', annotations: { readOnly: true, openWorld: true, title: 'Search the web' }, requiresEnv: ['SEARXNG_URL'], checkFn: () => ({ available: false, reason: 'no backend: set SEARXNG_URL' })
  }))
  registry.register(fixtureTool('mcp__srv__ping', { toolset: 'mcp-srv', origin: { kind: 'mcp', server: 'srv' } }))
  registry.registerAlias('srv', 'mcp-srv')
  return built
}

test('GET /tools lists every tool with availability and reasons; always 200', async (t) => {
  const { app } = await setup(t)
  const res = await app.inject('/tools')
  assert.equal(res.statusCode, 200)
  const body = res.json()
  assert.equal(body.generation, app.gateway.registry.generation)
  assert.deepEqual(body.summary, { total: 3, available: 2, unavailable: 1 })
  assert.deepEqual(body.tools.map((tool: { name: string }) => tool.name), ['mcp__srv__ping', 'read_file', 'web_search'])
  const search = body.tools.find((tool: { name: string }) => tool.name === 'web_search')
  assert.deepEqual(search, {
    name: 'web_search',
    toolset: 'web',
    available: false,
    reason: 'no backend: set SEARXNG_URL',
    requiresEnv: ['SEARXNG_URL'],
    emoji: '⚡',
    description: 'The web_search fixture tool',
    origin: { kind: 'builtin' },
    annotations: { readOnly: true, openWorld: true, title: 'Search the web' },
    leftOutOf: [],
    definitionTokens: null
  })
  assert.deepEqual(body.tools[0].origin, { kind: 'mcp', server: 'srv' })
  assert.deepEqual(body.tools[0].annotations, {}, 'a tool that declares none shows an empty object: the MCP defaults apply')
  const filtered = (await app.inject('/tools?toolset=file')).json()
  assert.deepEqual(filtered.tools.map((tool: { name: string }) => tool.name), ['read_file'])
})

test('GET /tools/:name shows one tool in full with effective limits; unknown is 404', async (t) => {
  const { app } = await setup(t)
  const body = (await app.inject('/tools/read_file')).json()
  assert.equal(body.name, 'read_file')
  assert.equal(body.emoji, '📖')
  assert.deepEqual(body.limits, { timeoutMs: 45000, maxResultSizeChars: 5000 })
  assert.equal(body.parameters.type, 'object')
  assert.equal(body.available, true)
  assert.equal(body.reason, null)
  assert.deepEqual(body.annotations, {})
  assert.deepEqual((await app.inject('/tools/web_search')).json().annotations, { readOnly: true, openWorld: true, title: 'Search the web' })
  const missing = await app.inject('/tools/nope')
  assert.equal(missing.statusCode, 404)
  assert.equal(missing.json().code, 'GW_ERR_TOOL_NOT_FOUND')
})

test('GET /toolsets shows members, includes, aliases and availability', async (t) => {
  const { app } = await setup(t)
  const { toolsets } = (await app.inject('/toolsets')).json()
  const byName = new Map(toolsets.map((ts: { name: string }) => [ts.name, ts]))
  assert.deepEqual(byName.get('debugging'), {
    name: 'debugging',
    kind: 'builtin',
    description: (byName.get('debugging') as { description: string }).description,
    tools: ['read_file', 'web_search'],
    includes: ['terminal', 'web', 'file', 'results'],
    aliases: [],
    available: true,
    reason: null
  })
  assert.equal((byName.get('web') as { available: boolean }).available, false)
  assert.match((byName.get('web') as { reason: string }).reason, /no tool/)
  assert.deepEqual((byName.get('mcp-srv') as { aliases: string[] }).aliases, ['srv'])
  assert.equal((byName.get('mcp-srv') as { kind: string }).kind, 'registry')
  assert.equal((byName.get('terminal') as { reason: string }).reason, 'no registered tools')
})

test('health, readiness and metrics', async (t) => {
  const { app } = await setup(t)
  assert.deepEqual((await app.inject('/healthz')).json(), { status: 'ok' })
  const ready = await app.inject('/readyz')
  assert.equal(ready.statusCode, 200)
  assert.equal(ready.json().ready, true)
  await app.inject({ method: 'POST', url: '/dispatch/read_file', payload: {} })
  await app.inject({ method: 'POST', url: '/dispatch/nope', payload: {} })
  await app.inject('/definitions')
  const metrics = await app.inject('/metrics')
  assert.equal(metrics.statusCode, 200)
  assert.match(metrics.headers['content-type'] as string, /^text\/plain/)
  assert.match(metrics.body, /gateway_tool_calls_total\{tool="read_file",status="ok"\} 1/)
  assert.match(metrics.body, /gateway_tool_calls_total\{tool="\(unknown\)",status="not_found"\} 1/)
  assert.match(metrics.body, /gateway_tool_call_duration_seconds_count\{tool="read_file"\} 1/)
  assert.match(metrics.body, /gateway_tool_calls_in_flight 0/)
  assert.match(metrics.body, /gateway_definitions_served_total\{status="200"\} 1/)
  app.lifecycle.beginDrain()
  const draining = await app.inject('/readyz')
  assert.equal(draining.statusCode, 503)
  assert.equal(draining.json().draining, true)
})
