// Tests of the toolset-level availability queries over a real registry snapshot.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AvailabilityChecker } from '../../src/availability/checker.ts'
import { toolsetAvailability, toolsetRequirements } from '../../src/availability/queries.ts'
import { ToolRegistry } from '../../src/registry/registry.ts'
import type { RegisterOptions } from '../../src/registry/types.ts'

function add (registry: ToolRegistry, name: string, toolset: string, extra: Partial<RegisterOptions> = {}): void {
  registry.register({
    name,
    toolset,
    schema: { description: name, parameters: { type: 'object', properties: {} } },
    handler: () => 'ok',
    ...extra
  })
}

function counted (answer: boolean) {
  const probe = Object.assign(() => { probe.calls++; return answer }, { calls: 0 })
  return probe
}

test('a toolset is available when at least one of its tools is', async () => {
  const registry = new ToolRegistry()
  add(registry, 'web_search', 'web', { checkFn: () => ({ available: false, reason: 'no API key' }) })
  add(registry, 'web_extract', 'web', { checkFn: () => true })
  const verdict = await toolsetAvailability(new AvailabilityChecker(), registry.snapshot(), 'web')
  assert.deepEqual(verdict, { available: true })
})

test('a toolset is unavailable when none of its tools is, with each reason', async () => {
  const registry = new ToolRegistry()
  add(registry, 'terminal', 'term', { checkFn: () => ({ available: false, reason: 'no shell' }) })
  add(registry, 'process', 'term', { checkFn: () => { throw new Error('docker gone') } })
  add(registry, 'other', 'elsewhere')
  const verdict = await toolsetAvailability(new AvailabilityChecker(), registry.snapshot(), 'term')
  assert.equal(verdict.available, false)
  assert.equal(verdict.reason,
    'no tool in toolset "term" is available (process: availability check threw: docker gone; terminal: no shell)')
})

test('an unknown or empty toolset is unavailable with a reason naming it', async () => {
  const registry = new ToolRegistry()
  const checker = new AvailabilityChecker()
  assert.deepEqual(await toolsetAvailability(checker, registry.snapshot(), 'nope'),
    { available: false, reason: 'no tools registered in toolset "nope"' })
  add(registry, 'gone', 'temp')
  registry.deregister('gone')
  assert.deepEqual(await toolsetAvailability(checker, registry.snapshot(), 'temp'),
    { available: false, reason: 'no tools registered in toolset "temp"' })
})

test('an alias answers for its toolset', async () => {
  const registry = new ToolRegistry()
  add(registry, 'mcp__foo__echo', 'mcp-foo', { checkFn: () => false })
  registry.registerAlias('foo', 'mcp-foo')
  const verdict = await toolsetAvailability(new AvailabilityChecker(), registry.snapshot(), 'foo')
  assert.equal(verdict.available, false)
  assert.match(verdict.reason!, /mcp__foo__echo: availability check returned false/)
})

test('the snapshot given is the one answered, even after the registry moves on', async () => {
  const registry = new ToolRegistry()
  add(registry, 'a', 'set', { checkFn: () => false })
  const snapshot = registry.snapshot()
  add(registry, 'b', 'set')
  assert.equal((await toolsetAvailability(new AvailabilityChecker(), snapshot, 'set')).available, false)
  assert.equal((await toolsetAvailability(new AvailabilityChecker(), registry.snapshot(), 'set')).available, true)
})

test('toolsetRequirements: one row per registry tag, sorted, with sorted members and env union', async () => {
  const registry = new ToolRegistry()
  const shared = counted(false)
  add(registry, 'web_search', 'web', { requiresEnv: ['SEARCH_KEY', 'PROXY'], checkFn: () => true })
  add(registry, 'web_extract', 'web', { requiresEnv: ['PROXY'] })
  add(registry, 'b_tool', 'browser', { checkFn: shared, requiresEnv: ['BROWSER_URL'] })
  add(registry, 'a_tool', 'browser', { checkFn: shared })
  add(registry, 'vision', 'zeta', { checkFn: shared })

  const rows = await toolsetRequirements(new AvailabilityChecker(), registry.snapshot())
  assert.equal(shared.calls, 1, 'a probe shared across tools and toolsets runs once')
  assert.deepEqual(rows.map((row) => row.toolset), ['browser', 'web', 'zeta'])

  const [browser, web, zeta] = rows
  assert.deepEqual(web, {
    toolset: 'web', available: true, tools: ['web_extract', 'web_search'], requiresEnv: ['PROXY', 'SEARCH_KEY']
  })
  assert.equal('reason' in web, false)
  assert.equal(browser.available, false)
  assert.deepEqual(browser.tools, ['a_tool', 'b_tool'])
  assert.deepEqual(browser.requiresEnv, ['BROWSER_URL'])
  assert.match(browser.reason!, /^no tool in toolset "browser" is available \(a_tool: .*; b_tool: .*\)$/)
  assert.deepEqual({ ...zeta, reason: undefined },
    { toolset: 'zeta', available: false, tools: ['vision'], requiresEnv: [], reason: undefined })
})

test('toolsetRequirements of an empty registry is an empty list', async () => {
  assert.deepEqual(await toolsetRequirements(new AvailabilityChecker(), new ToolRegistry().snapshot()), [])
})
