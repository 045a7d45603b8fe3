import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AvailabilityChecker } from '../../src/availability/checker.ts'
import { DefinitionsBuilder } from '../../src/definitions/definitions.ts'
import { ToolRegistry } from '../../src/registry/registry.ts'
import type { ToolEntry } from '../../src/registry/types.ts'
import { captureLogger } from '../helpers/logger.ts'
import { fixtureTool } from '../helpers/tools.ts'

function setup () {
  const captured = captureLogger()
  const registry = new ToolRegistry()
  const availability = new AvailabilityChecker()
  const builder = new DefinitionsBuilder({ registry, availability, logger: captured.logger })
  return { registry, builder, ...captured }
}

test('definitions are OpenAI function tools, sorted by name, unavailable ones left out', async () => {
  const { registry, builder } = setup()
  registry.register(fixtureTool('zeta'))
  registry.register(fixtureTool('alpha', { description: 'Alpha does things' }))
  registry.register(fixtureTool('off', { checkFn: () => ({ available: false, reason: 'no key' }) }))
  registry.register(fixtureTool('broken', { checkFn: () => { throw new Error('probe exploded') } }))
  const tools = await builder.definitions(['zeta', 'off', 'alpha', 'broken', 'not-registered'])
  assert.deepEqual(tools.map((t) => t.function.name), ['alpha', 'zeta'])
  assert.deepEqual(tools[0], {
    type: 'function',
    function: {
      name: 'alpha',
      description: 'Alpha does things',
      parameters: { type: 'object', properties: { text: { type: 'string' } } }
    }
  })
})

test('dynamic overrides are merged at every pass, and the name stays the registry name', async () => {
  const { registry, builder } = setup()
  let limit = 3
  registry.register(fixtureTool('delegate', {
    dynamicSchemaOverrides: () => ({ name: 'hijacked', description: `Runs up to ${limit} children` })
  }))
  const first = await builder.definitions(['delegate'])
  assert.equal(first[0].function.name, 'delegate')
  assert.equal(first[0].function.description, 'Runs up to 3 children')
  limit = 5
  const second = await builder.definitions(['delegate'])
  assert.equal(second[0].function.description, 'Runs up to 5 children', 'an override change is seen without a registry change')
})

test('a throwing or malformed override falls back to the static schema with a warning', async () => {
  const { registry, builder, lines } = setup()
  registry.register(fixtureTool('thrower', { dynamicSchemaOverrides: () => { throw new Error('config missing') } }))
  registry.register(fixtureTool('weird', { dynamicSchemaOverrides: () => ['not', 'an', 'object'] as never }))
  registry.register(fixtureTool('badparams', { dynamicSchemaOverrides: () => ({ parameters: { type: 'string' } }) }))
  const tools = await builder.definitions(['thrower', 'weird', 'badparams'])
  assert.equal(tools.length, 3)
  for (const tool of tools) {
    assert.deepEqual(tool.function.parameters, { type: 'object', properties: { text: { type: 'string' } } })
  }
  const warnings = lines().filter((l) => l.msg === 'dynamic schema override failed; using the static schema')
  assert.deepEqual(warnings.map((w) => w.tool).sort(), ['thrower', 'weird'])
})

test('a pass is cached per generation and dropped when the registry changes', async () => {
  const { registry, builder } = setup()
  registry.register(fixtureTool('a'))
  const first = await builder.build(['a', 'b'])
  const again = await builder.build(['a', 'b'])
  assert.equal(again, first, 'same generation, same selection: the cached payload')
  assert.equal(first.json, JSON.stringify(first.tools))
  assert.match(first.etag, /^"[A-Za-z0-9_-]{27}"$/)
  registry.register(fixtureTool('b'))
  const changed = await builder.build(['a', 'b'])
  assert.notEqual(changed, first)
  assert.notEqual(changed.etag, first.etag)
  assert.equal(changed.generation, registry.generation)
  assert.deepEqual(changed.tools.map((t) => t.function.name), ['a', 'b'])
})

/** A builder whose availability verdicts live 1 s on a clock the test moves. */
function setupWithClock () {
  const clock = { now: 0 }
  const registry = new ToolRegistry()
  const availability = new AvailabilityChecker({ now: () => clock.now, ttlMs: 1000, graceMs: 0 })
  const builder = new DefinitionsBuilder({ registry, availability, logger: captureLogger().logger })
  return { clock, registry, availability, builder }
}

test('availability changes show up without a registry change', async () => {
  const { clock, registry, builder } = setupWithClock()
  let up = true
  registry.register(fixtureTool('flaky', { checkFn: () => up }))
  assert.equal((await builder.build(['flaky'])).tools.length, 1)
  up = false
  clock.now = 2000
  assert.equal((await builder.build(['flaky'])).tools.length, 0)
})

test('a selection with checked tools answers its cached payload while the verdicts hold, and follows them once they change', async () => {
  const { clock, registry, availability, builder } = setupWithClock()
  let up = true
  let probes = 0
  registry.register(fixtureTool('steady'))
  registry.register(fixtureTool('flaky', { checkFn: () => { probes++; return up } }))
  const select = () => ['steady', 'flaky']
  const first = await builder.buildFor('all', select)
  assert.deepEqual(first.tools.map((t) => t.function.name), ['flaky', 'steady'])
  up = false
  clock.now = 500
  assert.equal(await builder.buildFor('all', select), first, 'a fresh verdict: the same payload, no probe')
  assert.equal(probes, 1)
  clock.now = 1500
  // Another reader (GET /tools, a dispatch) re-runs the probe first: the new verdict is fresh in the cache.
  await availability.tool(registry.getEntry('flaky') as ToolEntry)
  const down = await builder.buildFor('all', select)
  assert.deepEqual(down.tools.map((t) => t.function.name), ['steady'])
  assert.equal(probes, 2)
  up = true
  clock.now = 1700
  assert.equal(await builder.buildFor('all', select), down, 'an unavailable verdict is cached as well')
  clock.now = 3000
  assert.deepEqual((await builder.buildFor('all', select)).tools.map((t) => t.function.name), ['flaky', 'steady'])
  assert.equal(probes, 3)
})

test('callers cannot corrupt the cached definitions', async () => {
  const { registry, builder } = setup()
  const parameters = { type: 'object', properties: { text: { type: 'string' } } }
  registry.register(fixtureTool('a', { schema: { description: 'd', parameters } }))
  const shared = await builder.build(['a'])
  assert.throws(() => { (shared.tools as unknown[]).push('x') }, TypeError)
  assert.throws(() => { (shared.tools[0].function as { name: string }).name = 'evil' }, TypeError)
  const copy = await builder.definitions(['a'])
  copy[0].function.name = 'evil'
  ;(copy[0].function.parameters.properties as Record<string, unknown>).text = 'gone'
  const fresh = await builder.definitions(['a'])
  assert.equal(fresh[0].function.name, 'a')
  assert.deepEqual(fresh[0].function.parameters, { type: 'object', properties: { text: { type: 'string' } } })
  parameters.properties.text.type = 'number'
  assert.deepEqual((await builder.definitions(['a']))[0].function.parameters.properties, { text: { type: 'string' } },
    'mutating the object a tool registered with does not leak into cached definitions')
})

test('the cache is bounded', async () => {
  const registry = new ToolRegistry()
  const builder = new DefinitionsBuilder({ registry, availability: new AvailabilityChecker(), logger: captureLogger().logger, maxCacheEntries: 2 })
  for (const name of ['a', 'b', 'c']) registry.register(fixtureTool(name))
  const a = await builder.build(['a'])
  await builder.build(['b'])
  await builder.build(['c'])
  assert.notEqual(await builder.build(['a']), a, 'the oldest entry was evicted')
})
