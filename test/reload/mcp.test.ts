// MCP servers between reloads, against real servers on loopback: one added connects and serves
// its tools, one changed in any field is connected anew (a call under way finishes on the old
// connection), one unchanged is not touched, one removed loses its tools and its connection.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { TestMcpHttpServer } from '../mcp-client/helpers/http-server.ts'
import { writeTinyServer } from '../mcp-client/helpers/tiny-server.ts'
import { until, waitForState } from '../mcp-client/helpers/wait.ts'
import { buildReloadApp } from './helpers.ts'

interface TestContext { after: (fn: () => Promise<void> | void) => void }

async function httpServer (t: TestContext, tools: ConstructorParameters<typeof TestMcpHttpServer>[0]): Promise<TestMcpHttpServer> {
  const server = new TestMcpHttpServer(tools)
  await server.start()
  t.after(() => server.close())
  return server
}

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

function serversYaml (servers: Record<string, { url: string, headers?: Record<string, string> }>): string {
  return `mcpServers: ${JSON.stringify(servers)}\n`
}

test('MCP servers added, changed, left alone and removed by a reload', async (t) => {
  const a = await httpServer(t, { ping: { run: () => text('pong') } })
  const gate = Promise.withResolvers<void>()
  const b = await httpServer(t, { slow: { run: async () => { await gate.promise; return text('slow done') } } })
  const { app, configFile } = await buildReloadApp(t, serversYaml({ a: { url: a.url } }))
  const mcp = app.gateway.mcp
  const connectionA = mcp.connection('a')!
  assert.equal(connectionA.state, 'connected')

  await writeFile(configFile, serversYaml({ a: { url: a.url }, b: { url: b.url } }))
  let report = await app.reload()
  assert.ok(report.ok)
  assert.deepEqual(report.mcpServers, { added: ['b'], removed: [], reconnected: [] })
  assert.equal(mcp.connection('a'), connectionA, 'the unchanged server keeps its connection')
  assert.equal(mcp.connection('b')?.state, 'connected')
  assert.ok(app.gateway.registry.getEntry('mcp__b__slow'))
  assert.deepEqual(mcp.states().map((state) => state.server), ['a', 'b'])

  // A call under way on b while b's configuration changes: it ends on the old connection.
  const oldB = mcp.connection('b')!
  const inFlight = app.inject({ method: 'POST', url: '/dispatch/mcp__b__slow', payload: {} })
  await until(() => b.count('tools/call', 'slow') === 1, 'the slow call to reach b')
  await writeFile(configFile, serversYaml({ a: { url: a.url }, b: { url: b.url, headers: { 'x-edition': '2' } } }))
  report = await app.reload()
  assert.ok(report.ok)
  assert.deepEqual(report.mcpServers, { added: [], removed: [], reconnected: ['b'] })
  assert.deepEqual(report.applied, ['mcpServers'])
  const newB = mcp.connection('b')!
  assert.notEqual(newB, oldB)
  assert.equal(newB.state, 'connected')
  assert.equal(oldB.state, 'connected', 'the old connection stays open while its call runs')
  gate.resolve()
  const answer = await inFlight
  assert.equal(answer.statusCode, 200)
  assert.equal((answer.json() as { content: string }).content, 'slow done')
  await waitForState(oldB, 'closed')
  assert.equal(b.lastHeaders['x-edition'], '2')
  assert.equal(mcp.connection('a'), connectionA)

  await writeFile(configFile, serversYaml({ b: { url: b.url, headers: { 'x-edition': '2' } } }))
  const generation = app.gateway.registry.generation
  report = await app.reload()
  assert.ok(report.ok)
  assert.deepEqual(report.mcpServers, { added: [], removed: ['a'], reconnected: [] })
  assert.ok(app.gateway.registry.generation > generation)
  assert.equal(app.gateway.registry.getEntry('mcp__a__ping'), undefined)
  const gone = await app.inject({ method: 'POST', url: '/dispatch/mcp__a__ping', payload: {} })
  assert.equal(gone.statusCode, 404)
  await waitForState(connectionA, 'closed')
  assert.equal(mcp.connection('a'), undefined)
})

test('a stdio MCP server added by a reload starts its child; removed, the child exits', async (t) => {
  const { script } = await writeTinyServer()
  const { app, configFile } = await buildReloadApp(t)
  await writeFile(configFile, `mcpServers:\n  tiny: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(script)}] }\n`)
  let report = await app.reload()
  assert.ok(report.ok)
  assert.deepEqual(report.mcpServers.added, ['tiny'])
  const pid = app.gateway.mcp.connection('tiny')?.pid
  assert.ok(pid !== undefined)
  const res = await app.inject({ method: 'POST', url: '/dispatch/mcp__tiny__pid', payload: {} })
  assert.equal((res.json() as { content: string }).content, String(pid))

  await writeFile(configFile, '')
  report = await app.reload()
  assert.ok(report.ok)
  assert.deepEqual(report.mcpServers.removed, ['tiny'])
  await until(() => { try { process.kill(pid, 0); return false } catch { return true } }, 'the child to exit')
})
