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
  const h = await createMcpHarness({
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
  const h = await createMcpHarness({
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

test('servers named in reverse-DNS style start, their tools sanitised into names; the child gets the XDG folders', async (t) => {
  const tiny = await writeTinyServer()
  const saved = { XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, XDG_STATE_HOME: process.env.XDG_STATE_HOME }
  process.env.XDG_CONFIG_HOME = '/tmp/gw-xdg-config'
  process.env.XDG_STATE_HOME = '/tmp/gw-xdg-state'
  const h = await createMcpHarness({
    'io.github.user/server': { command: process.execPath, args: [tiny.script] } as McpServerConfig,
    'ai.exa/exa': { command: process.execPath, args: [tiny.script] } as McpServerConfig
  }, { tuning: { pingIntervalMs: 0 } })
  t.after(async () => {
    await h.manager.stop()
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
    await rm(tiny.dir, { recursive: true, force: true })
  })
  h.manager.start()
  await h.manager.ready()
  for (const status of h.manager.states()) assert.equal(status.state, 'connected', status.server)
  const names = [...h.registry.snapshot().tools.keys()]
  assert.ok(names.includes('mcp__io_github_user_server__env'), names.join(', '))
  assert.ok(names.includes('mcp__ai_exa_exa__pid'), names.join(', '))
  assert.equal(h.registry.getEntry('mcp__ai_exa_exa__pid')?.toolset, 'mcp-ai_exa_exa')
  assert.equal(h.registry.snapshot().aliases.get('ai.exa/exa'), 'mcp-ai_exa_exa', 'keys may name the toolset by the server\'s own name')
  const outcome = await h.call('mcp__io_github_user_server__env', {})
  assert.equal(outcome.status, 'ok')
  const env = JSON.parse(outcome.content) as Record<string, string>
  assert.equal(env.XDG_CONFIG_HOME, '/tmp/gw-xdg-config')
  assert.equal(env.XDG_STATE_HOME, '/tmp/gw-xdg-state')
})
