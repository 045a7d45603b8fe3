// list_changed churn on a server with thousands of tools: notifications cost a bounded number of
// tools/list fetches however they are spaced (each refresh of 3000 tools is work on the event
// loop), a stream of them cannot starve the refresh, and a refresh touches only the tools that
// changed (an unchanged tool keeps its registry entry; the generation moves once per changed tool).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import type { RegistryChange } from '../../src/registry/types.ts'
import { createMcpHarness } from './helpers/harness.ts'
import { writeScriptedServer } from './helpers/scripted-server.ts'
import { until, waitForState } from './helpers/wait.ts'

const COUNT = 3000
const DEBOUNCE_MS = 50
const INTERVAL_MS = 1000

function manyTools (changed?: number): unknown[] {
  const tools: unknown[] = [{ name: 'notify', inputSchema: { type: 'object' } }, { name: 'stats', inputSchema: { type: 'object' } }]
  for (let i = 0; i < COUNT; i++) {
    tools.push({
      name: `t${i}`,
      description: i === changed ? `tool ${i}, changed` : `tool ${i}`,
      inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: i }, s: { type: 'string', maxLength: 100 } }, required: ['n'] }
    })
  }
  return tools
}

test('a burst of list_changed on a server of 3000 tools: few fetches, only the changed tool re-registered', async (t) => {
  const scripted = await writeScriptedServer(manyTools())
  const h = await createMcpHarness({ big: scripted.config }, { tuning: { pingIntervalMs: 0 }, debounceMs: DEBOUNCE_MS, refreshIntervalMs: INTERVAL_MS })
  t.after(async () => {
    await h.manager.stop()
    await rm(scripted.dir, { recursive: true, force: true })
  })
  const connectChanges: RegistryChange[] = []
  h.registry.on('change', (change) => connectChanges.push(change))
  h.manager.start()
  await h.manager.ready()
  await waitForState(h.manager.connection('big')!, 'connected', 60_000)
  assert.equal(h.manager.states()[0].tools, COUNT + 2)
  // One registry change for the whole list (each change copies the registry: one per tool was
  // quadratic, about a second of blocked event loop for this server).
  assert.deepEqual(connectChanges.map((c) => c.type === 'batch' ? c.registered.length : c.type), [COUNT + 2, 'alias'])
  const listCalls = async (): Promise<number> => (JSON.parse((await h.call('mcp__big__stats', {})).content) as { listCalls: number }).listCalls
  const fetchesBefore = await listCalls()
  const unchanged = h.registry.getEntry('mcp__big__t1')
  const changes: RegistryChange[] = []
  h.registry.on('change', (change) => changes.push(change))

  await scripted.setTools(manyTools(7))
  // 3 s of churn: bursts of 20 notifications, one burst every 2 debounce periods, so a quiet
  // period follows each burst and a debounce alone would fetch the whole list after every one.
  const started = Date.now()
  let bursts = 0
  while (Date.now() - started < 3000) {
    const notified = await h.call('mcp__big__notify', { times: 20 })
    assert.equal(notified.status, 'ok', notified.content)
    bursts++
    await new Promise((resolve) => setTimeout(resolve, DEBOUNCE_MS * 2))
  }
  const elapsed = Date.now() - started
  await until(() => h.registry.getEntry('mcp__big__t7')?.description === 'tool 7, changed', 'the changed tool to be re-registered', 60_000)
  // Let the refresh still owed run, then count.
  await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS * 2))

  const fetches = (await listCalls()) - fetchesBefore
  const bound = Math.ceil(elapsed / INTERVAL_MS) + 2
  assert.ok(fetches >= 1 && fetches <= bound, `${bursts * 20} notifications in ${elapsed} ms cost ${fetches} tools/list fetches (bound ${bound})`)
  assert.deepEqual(changes.map((c) => c.type === 'batch' ? [c.registered, c.deregistered] : c.type), [[['mcp__big__t7'], []]], 'one registry change: the changed tool')
  assert.equal(h.registry.getEntry('mcp__big__t1'), unchanged, 'an unchanged tool keeps its entry')
})
