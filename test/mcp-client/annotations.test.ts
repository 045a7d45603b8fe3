// Tools of an upstream MCP server keep the annotations their server gave (readOnlyHint, ... mapped
// to the gateway's names), a change of annotations alone re-registers the tool, and a server's
// wrong types cost the hint, never the tool.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buildTestApp } from '../helpers/app.ts'
import { createMcpHarness, everythingConfig } from './helpers/harness.ts'
import { writeScriptedServer } from './helpers/scripted-server.ts'
import { connectScripted } from './helpers/scripted-harness.ts'
import { until, waitForState } from './helpers/wait.ts'

const OBJECT = { type: 'object', properties: {} }

function tools (writerDestructive: boolean): unknown[] {
  return [
    { name: 'reader', description: 'reads', inputSchema: OBJECT, annotations: { title: 'The reader', readOnlyHint: true, openWorldHint: false } },
    { name: 'writer', description: 'writes', inputSchema: OBJECT, annotations: { readOnlyHint: false, destructiveHint: writerDestructive, idempotentHint: true } },
    { name: 'plain', description: 'says nothing of itself', inputSchema: OBJECT },
    { name: 'notify', description: 'sends list_changed', inputSchema: OBJECT }
  ]
}

interface ToolsReport { tools: Array<{ name: string, annotations: Record<string, unknown> }> }

test('GET /tools shows the annotations an upstream server gave; a change of annotations alone re-registers the tool', async (t) => {
  const scripted = await writeScriptedServer(tools(true))
  t.after(() => rm(scripted.dir, { recursive: true, force: true }))
  const configFile = join(scripted.dir, 'gw.json')
  await writeFile(configFile, JSON.stringify({ mcpServers: { raw: scripted.config } }))
  const { app } = await buildTestApp(t, { GATEWAY_CONFIG: configFile })

  const byName = async (): Promise<Map<string, Record<string, unknown>>> => {
    const report = (await app.inject('/tools?toolset=mcp-raw')).json() as ToolsReport
    return new Map(report.tools.map((tool) => [tool.name, tool.annotations]))
  }
  const before = await byName()
  assert.deepEqual(before.get('mcp__raw__reader'), { title: 'The reader', readOnly: true, openWorld: false })
  assert.deepEqual(before.get('mcp__raw__writer'), { readOnly: false, destructive: true, idempotent: true })
  assert.deepEqual(before.get('mcp__raw__plain'), {}, 'nothing declared, nothing invented')

  const registry = app.gateway.registry
  const reader = registry.getEntry('mcp__raw__reader')
  await scripted.setTools(tools(false))
  const notified = await app.inject({ method: 'POST', url: '/dispatch/mcp__raw__notify', payload: {} })
  assert.equal(notified.statusCode, 200, notified.body)
  await until(() => registry.getEntry('mcp__raw__writer')?.annotations.destructive === false, 'the writer to be re-registered with its new annotations')
  assert.deepEqual((await byName()).get('mcp__raw__writer'), { readOnly: false, destructive: false, idempotent: true })
  assert.equal(registry.getEntry('mcp__raw__reader'), reader, 'a tool whose annotations did not change keeps its entry')
})

test('hints of the wrong type are dropped and the tool is still served', async (t) => {
  const { h } = await connectScripted(t, [
    { name: 'odd', inputSchema: OBJECT, annotations: { readOnlyHint: 'yes', destructiveHint: 0, openWorldHint: false, title: ['x'] } },
    { name: 'junk', inputSchema: OBJECT, annotations: 'read-only' }
  ])
  assert.deepEqual(h.registry.getEntry('mcp__raw__odd')?.annotations, { openWorld: false })
  assert.deepEqual(h.registry.getEntry('mcp__raw__junk')?.annotations, {})
  assert.equal((await h.call('mcp__raw__odd', {})).status, 'ok')
})

test('the tools of a server nobody here wrote (server-everything) keep its annotations', async (t) => {
  const h = await createMcpHarness({ every: everythingConfig() }, { tuning: { pingIntervalMs: 0 } })
  t.after(() => h.manager.stop())
  h.manager.start()
  await h.manager.ready()
  await waitForState(h.manager.connection('every')!, 'connected', 30_000)
  assert.deepEqual(h.registry.getEntry('mcp__every__echo')?.annotations, { readOnly: true, destructive: false, idempotent: true, openWorld: false })
  const utility = h.registry.getEntry('mcp__every__read_resource')
  assert.ok(utility, 'server-everything offers resources, so the gateway adds its resource tools')
  assert.deepEqual(utility.annotations, { readOnly: true }, 'the gateway\'s own resource tools only read')
})
