// The refresh a tool list's ttlMs asks for: never sooner than the floor (ttlMs 0 is no refresh
// loop), later when the list keeps coming back unchanged, jittered; nothing planned without ttlMs.
// Then for real: a 2026-07-28 server whose tool appears without telling anyone is found at the ttl.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { McpServerConfig } from '../../src/config/schema.ts'
import { TTL_REFRESH_FLOOR_MS, TtlRefresh } from '../../src/mcp-client/ttl-refresh.ts'
import { ManualClock } from './helpers/clock.ts'
import { createMcpHarness } from './helpers/harness.ts'
import { ModernMcpHttpServer } from './helpers/modern-http-server.ts'
import { until } from './helpers/wait.ts'

function timer (clock: ManualClock, floorMs?: number): { ttl: TtlRefresh, due: () => number } {
  let due = 0
  const ttl = new TtlRefresh({ clock, floorMs, onStale: () => { due++ } })
  return { ttl, due: () => due }
}

test('ttlMs 0 (the SDK servers\' default) refreshes no sooner than the floor, a minute', () => {
  const clock = new ManualClock()
  clock.randomValue = 0
  const { ttl, due } = timer(clock)
  ttl.listed(0, true)
  clock.advance(TTL_REFRESH_FLOOR_MS - 1)
  assert.equal(due(), 0)
  clock.advance(1)
  assert.equal(due(), 1)
  assert.equal(TTL_REFRESH_FLOOR_MS, 60_000)
})

test('a ttlMs above the floor is the wait; each unchanged list doubles it, up to 16 times; a change starts over', () => {
  const clock = new ManualClock()
  clock.randomValue = 0
  const { ttl } = timer(clock, 1_000)
  const waits: number[] = []
  ttl.listed(5_000, true)
  waits.push(clock.delays.at(-1)!)
  for (let i = 0; i < 6; i++) {
    ttl.listed(5_000, false)
    waits.push(clock.delays.at(-1)!)
  }
  ttl.listed(5_000, true)
  waits.push(clock.delays.at(-1)!)
  assert.deepEqual(waits, [5_000, 10_000, 20_000, 40_000, 80_000, 80_000, 80_000, 5_000])
  assert.equal(clock.pending, 1, 'one refresh planned at a time')
})

test('the wait is stretched by up to 10 % at random; a negative ttlMs counts as 0; no ttlMs plans nothing', () => {
  const clock = new ManualClock()
  clock.randomValue = 0.999
  const { ttl } = timer(clock, 1_000)
  ttl.listed(10_000, true)
  assert.equal(clock.delays.at(-1), 10_999)
  ttl.listed(-5, true)
  assert.equal(clock.delays.at(-1), 1_100)
  ttl.listed(undefined, true)
  assert.equal(clock.pending, 0)
  ttl.listed(0, true)
  ttl.dispose()
  assert.equal(clock.pending, 0)
  ttl.listed(0, true)
  assert.equal(clock.pending, 0, 'nothing after dispose')
})

test('a modern server\'s tool that appears without notice is found once the list\'s ttlMs has run out', async (t) => {
  const server = new ModernMcpHttpServer({ first: { run: () => ({ content: [] }) } }, { listTtlMs: 150 })
  await server.start()
  const h = await createMcpHarness({ cached: { url: server.url } as McpServerConfig }, { tuning: { pingIntervalMs: 0 }, debounceMs: 10, refreshIntervalMs: 10, ttlFloorMs: 100 })
  t.after(async () => {
    await h.manager.stop()
    await server.close()
  })
  h.manager.start()
  await h.manager.ready()
  assert.equal(h.manager.connection('cached')!.listTtlMs, 150)
  const lists = server.count('tools/list')
  server.addTool('quiet', { run: () => ({ content: [{ type: 'text', text: 'quiet' }] }) }, false)
  await until(() => h.registry.getEntry('mcp__cached__quiet') !== undefined, 'the refresh at the ttl to find the tool')
  assert.ok(server.count('tools/list') > lists, 'found by a tools/list of its own, no notification')
  assert.equal((await h.call('mcp__cached__quiet', {})).content, 'quiet')
})
