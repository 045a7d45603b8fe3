import { test } from 'node:test'
import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import type { McpServerConfig } from '../../src/config/schema.ts'
import { createMcpHarness } from './helpers/harness.ts'
import { TestMcpHttpServer } from './helpers/http-server.ts'
import { childProcesses } from './helpers/processes.ts'
import { writeTinyServer } from './helpers/tiny-server.ts'
import { waitForState } from './helpers/wait.ts'

const ADD = {
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
  run: ({ a, b }: Record<string, unknown>) => ({ content: [{ type: 'text' as const, text: String(Number(a) + Number(b)) }] })
}

test('a hung server does not hold up readiness or the other servers', async (t) => {
  const healthy = new TestMcpHttpServer({ add: ADD })
  const hung = new TestMcpHttpServer({ add: ADD })
  await healthy.start()
  await hung.start()
  hung.frozen = true
  const h = createMcpHarness({
    good: { url: healthy.url },
    stuck: { url: hung.url, connectTimeoutMs: 300 }
  }, { tuning: { pingIntervalMs: 0, failureThreshold: 1000 } })
  t.after(async () => {
    await h.manager.stop()
    await healthy.close()
    await hung.close()
  })
  h.manager.start()
  await h.manager.ready()
  const states = Object.fromEntries(h.manager.states().map((s) => [s.server, s]))
  assert.equal(states.good.state, 'connected')
  assert.notEqual(states.stuck.state, 'connected')
  assert.equal((await h.call('mcp__good__add', { a: 1, b: 1 })).status, 'ok')
  await waitForState(h.manager.connection('stuck')!, 'reconnecting')
  assert.match(h.manager.connection('stuck')!.lastError ?? '', /timed out/i)
})

test('disabled servers and servers whose names clash once sanitised are shown disabled and never started', async (t) => {
  const tiny = await writeTinyServer()
  const tinyConfig = (extra: Partial<McpServerConfig> = {}): McpServerConfig => ({ command: process.execPath, args: [tiny.script], ...extra }) as McpServerConfig
  const h = createMcpHarness({
    off: tinyConfig({ enabled: false }),
    'a-b': tinyConfig(),
    a_b: tinyConfig(),
    fine: tinyConfig()
  }, { tuning: { pingIntervalMs: 0 } })
  t.after(async () => {
    await h.manager.stop()
    await rm(tiny.dir, { recursive: true, force: true })
  })
  h.manager.start()
  await h.manager.ready()
  const states = Object.fromEntries(h.manager.states().map((s) => [s.server, s]))
  assert.equal(states.off.state, 'disabled')
  assert.equal(states.off.lastError, 'disabled in the configuration')
  assert.equal(states['a-b'].state, 'disabled')
  assert.match(states['a-b'].lastError!, /clashes with "a_b"/)
  assert.equal(states.a_b.state, 'disabled')
  assert.equal(states.fine.state, 'connected')
  assert.equal(childProcesses().length, 1, 'only the enabled server runs')
  assert.ok(h.log.lines().some((l) => l.level === 50 && /clashes with/.test(String(l.msg))))
})
