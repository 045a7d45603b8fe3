import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ToolRegistry } from '../../src/registry/registry.ts'
import type { ToolOrigin } from '../../src/registry/types.ts'
import { UnknownToolsetError } from '../../src/shared/errors.ts'
import { ToolsetCatalog } from '../../src/toolsets/catalog.ts'

function add (registry: ToolRegistry, name: string, toolset: string, origin?: ToolOrigin): void {
  registry.register({ name, toolset, origin, schema: { description: name, parameters: { type: 'object' } }, handler: () => 'ok' })
}

const MCP_FOO: ToolOrigin = { kind: 'mcp', server: 'foo' }
const ACME: ToolOrigin = { kind: 'plugin', plugin: 'acme', allowToolOverride: false }

/** file and web registered, terminal off (as when no shell is allowed), an MCP server and a plugin. */
function gateway (): ToolRegistry {
  const registry = new ToolRegistry()
  add(registry, 'read_file', 'file')
  add(registry, 'write_file', 'file')
  add(registry, 'web_search', 'web')
  add(registry, 'web_extract', 'web')
  add(registry, 'mcp__foo__echo', 'mcp-foo', MCP_FOO)
  add(registry, 'mcp__foo__add', 'mcp-foo', MCP_FOO)
  registry.registerAlias('foo', 'mcp-foo')
  add(registry, 'acme_lint', 'acme', ACME)
  return registry
}

function unknownError (fn: () => unknown): InstanceType<typeof UnknownToolsetError> {
  let caught: unknown
  assert.throws(fn, (err) => { caught = err; return true })
  assert.ok(caught instanceof UnknownToolsetError, `expected UnknownToolsetError, got ${String(caught)}`)
  return caught
}

test('a tool registering with a static toolset tag joins that toolset and the composites above it', () => {
  const registry = gateway()
  add(registry, 'acme_grep', 'file', ACME)
  const catalog = new ToolsetCatalog()
  const snapshot = registry.snapshot()
  assert.deepEqual(catalog.definition('file', snapshot)?.tools, ['acme_grep', 'patch', 'read_file', 'search_files', 'write_file'])
  assert.deepEqual(catalog.resolve(['file'], snapshot), ['acme_grep', 'read_file', 'write_file'])
  assert.ok(catalog.resolve(['debugging'], snapshot).includes('acme_grep'))
})

test('a static toolset drops tools that are not registered; a known toolset with none is not an error', () => {
  const catalog = new ToolsetCatalog()
  const snapshot = gateway().snapshot()
  assert.deepEqual(catalog.definition('terminal', snapshot)?.tools, ['process', 'terminal'])
  assert.deepEqual(catalog.resolve(['terminal'], snapshot), [])
  assert.deepEqual(catalog.resolve(['debugging'], snapshot), ['read_file', 'web_extract', 'web_search', 'write_file'])
  assert.deepEqual(catalog.resolve(['safe'], snapshot), ['web_extract', 'web_search'])
})

test('plugin and MCP tags that are not static become toolsets of their tagged tools', () => {
  const catalog = new ToolsetCatalog()
  const snapshot = gateway().snapshot()
  const mcp = catalog.definition('mcp-foo', snapshot)
  assert.deepEqual(mcp?.tools, ['mcp__foo__add', 'mcp__foo__echo'])
  assert.deepEqual(mcp?.includes, [])
  assert.match(mcp!.description, /MCP server "foo"/)
  assert.match(catalog.definition('acme', snapshot)!.description, /plugin "acme"/)
  assert.deepEqual(catalog.resolve(['acme'], snapshot), ['acme_lint'])
  assert.deepEqual(catalog.resolve(['mcp-foo', 'acme'], snapshot), ['acme_lint', 'mcp__foo__add', 'mcp__foo__echo'])
})

test('an alias resolves to its target, and goes with it', () => {
  const registry = gateway()
  const catalog = new ToolsetCatalog()
  const before = registry.snapshot()
  assert.deepEqual(catalog.definition('foo', before), catalog.definition('mcp-foo', before))
  assert.deepEqual(catalog.resolve(['foo'], before), ['mcp__foo__add', 'mcp__foo__echo'])
  assert.ok(catalog.names(before).includes('foo'))

  registry.deregister('mcp__foo__add')
  registry.deregister('mcp__foo__echo')
  const after = registry.snapshot()
  const err = unknownError(() => catalog.resolve(['foo'], after))
  assert.deepEqual(err.unknown, ['foo'])
  assert.ok(!catalog.names(after).includes('mcp-foo'))
  // A reader holding the older snapshot keeps a consistent answer.
  assert.deepEqual(catalog.resolve(['foo'], before), ['mcp__foo__add', 'mcp__foo__echo'])
})

test('custom toolsets include builtins, other customs and registry tags, and registered tools join them', () => {
  const registry = gateway()
  const catalog = new ToolsetCatalog({
    custom: {
      review: { description: 'Code review', tools: ['read_file', 'not_registered'], includes: ['lookup', 'foo'] },
      lookup: { includes: ['web', 'review'] }
    }
  })
  add(registry, 'acme_diff', 'review', ACME)
  const snapshot = registry.snapshot()
  assert.deepEqual(catalog.resolve(['review'], snapshot),
    ['acme_diff', 'mcp__foo__add', 'mcp__foo__echo', 'read_file', 'web_extract', 'web_search'])
  assert.deepEqual(catalog.resolve(['lookup'], snapshot), catalog.resolve(['review'], snapshot))
  const review = catalog.definition('review', snapshot)
  assert.equal(review?.description, 'Code review')
  assert.deepEqual(review?.tools, ['acme_diff', 'not_registered', 'read_file'])
  assert.match(catalog.definition('lookup', snapshot)!.description, /lookup/)
})

test('a custom include is checked when resolving, not at construction (registry tags come later)', () => {
  const registry = new ToolRegistry()
  add(registry, 'web_search', 'web')
  const catalog = new ToolsetCatalog({ custom: { research: { includes: ['web', 'mcp-docs'] } } })
  const err = unknownError(() => catalog.resolve(['research'], registry.snapshot()))
  assert.deepEqual(err.unknown, ['mcp-docs'])
  assert.match(err.message, /"research" includes unknown toolset "mcp-docs"/)
  assert.throws(() => catalog.select(registry.snapshot(), { disabled: ['research'] }), UnknownToolsetError)

  add(registry, 'mcp__docs__find', 'mcp-docs', { kind: 'mcp', server: 'docs' })
  assert.deepEqual(catalog.resolve(['research'], registry.snapshot()), ['mcp__docs__find', 'web_search'])
})

test('all and * mean every registered tool', () => {
  const catalog = new ToolsetCatalog({ custom: { everything: { includes: ['all'] } } })
  const snapshot = gateway().snapshot()
  const every = [...snapshot.tools.keys()].sort()
  assert.deepEqual(catalog.resolve(['all'], snapshot), every)
  assert.deepEqual(catalog.resolve(['*'], snapshot), every)
  assert.deepEqual(catalog.resolve(['everything'], snapshot), every)
  assert.deepEqual(catalog.select(snapshot, { enabled: ['*'], disabled: ['foo'] }), every.filter((t) => !t.startsWith('mcp__')))
})

test('names lists builtins, customs, registry tags, aliases, all and *, sorted', () => {
  const catalog = new ToolsetCatalog({ custom: { zed: { tools: ['read_file'] } } })
  assert.deepEqual(catalog.names(gateway().snapshot()),
    ['*', 'acme', 'all', 'debugging', 'file', 'foo', 'mcp-foo', 'results', 'safe', 'terminal', 'web', 'zed'])
})

test('select: an absent enabled list means every registered tool; an empty one selects none', () => {
  const catalog = new ToolsetCatalog()
  const snapshot = gateway().snapshot()
  const every = [...snapshot.tools.keys()].sort()
  assert.deepEqual(catalog.select(snapshot), every)
  assert.deepEqual(catalog.select(snapshot, {}), every)
  // An empty selection never widens: a list that names nothing (a key's toolset of blanks) grants nothing.
  assert.deepEqual(catalog.select(snapshot, { enabled: [] }), [])
  assert.deepEqual(catalog.select(snapshot, { enabled: ['', '  ', ' , '] }), [])
  assert.deepEqual(catalog.select(snapshot, { disabled: [''] }), every)
  assert.deepEqual(catalog.select(snapshot, { disabled: ['file', 'foo'] }), ['acme_lint', 'web_extract', 'web_search'])
})

test('select: a disable beats a composite enable', () => {
  const registry = gateway()
  add(registry, 'terminal', 'terminal')
  add(registry, 'process', 'terminal')
  const catalog = new ToolsetCatalog()
  const snapshot = registry.snapshot()
  assert.ok(catalog.select(snapshot, { enabled: ['debugging'] }).includes('terminal'))
  assert.deepEqual(catalog.select(snapshot, { enabled: ['debugging'], disabled: ['terminal'] }),
    ['read_file', 'web_extract', 'web_search', 'write_file'])
  assert.deepEqual(catalog.select(snapshot, { enabled: ['debugging'], disabled: ['safe'] }),
    ['process', 'read_file', 'terminal', 'write_file'])
  assert.deepEqual(catalog.select(snapshot, { enabled: ['web'], disabled: ['debugging'] }), [])
})

test('unknown names are an error that names each one and lists the valid names', () => {
  const catalog = new ToolsetCatalog()
  const snapshot = gateway().snapshot()
  const err = unknownError(() => catalog.resolve(['web', 'nope', 'bogus'], snapshot))
  assert.equal(err.code, 'GW_ERR_UNKNOWN_TOOLSET')
  assert.equal(err.statusCode, 400)
  assert.ok(Object.hasOwn(err, 'unknown') && Object.hasOwn(err, 'valid'))
  assert.deepEqual(err.unknown, ['nope', 'bogus'])
  assert.deepEqual(err.valid, catalog.names(snapshot))
  assert.match(err.message, /"nope"/)
  assert.match(err.message, /"bogus"/)
  for (const name of err.valid) assert.ok(err.message.includes(name), `message lists ${name}`)

  const both = unknownError(() => catalog.select(snapshot, { enabled: ['web', 'ghost'], disabled: ['phantom'] }))
  assert.deepEqual(both.unknown, ['ghost', 'phantom'])
  assert.deepEqual(unknownError(() => catalog.select(snapshot, { disabled: ['phantom'] })).unknown, ['phantom'])
  // Names on Object.prototype are not toolsets.
  assert.deepEqual(unknownError(() => catalog.resolve(['toString', 'constructor', '__proto__'], snapshot)).unknown,
    ['toString', 'constructor', '__proto__'])
})

test('names are trimmed; empty names and repeats are ignored', () => {
  const catalog = new ToolsetCatalog()
  const snapshot = gateway().snapshot()
  assert.deepEqual(catalog.resolve([' web ', '', '\t'], snapshot), ['web_extract', 'web_search'])
  assert.deepEqual(catalog.select(snapshot, { enabled: ['web,,file'] }), ['read_file', 'web_extract', 'web_search', 'write_file'])
  assert.deepEqual(catalog.select(snapshot, { enabled: ['web', ' web'], disabled: [' ', 'file'] }), ['web_extract', 'web_search'])
  assert.deepEqual(catalog.resolve([], snapshot), [])
  assert.deepEqual(unknownError(() => catalog.resolve([' nope , nope'], snapshot)).unknown, ['nope'])
})

test('a custom toolset cannot take a builtin or reserved name, and a bad shape is refused', () => {
  assert.throws(() => new ToolsetCatalog({ custom: { file: { tools: ['x'] } } }), /"file" is a builtin toolset/)
  assert.throws(() => new ToolsetCatalog({ custom: { all: {} } }), /reserved/)
  assert.throws(() => new ToolsetCatalog({ custom: { '*': {} } }), /reserved/)
  assert.throws(() => new ToolsetCatalog({ custom: { 'a,b': {} } }), /commas/)
  assert.throws(() => new ToolsetCatalog({ custom: { 'a b': {} } }), /spaces/)
  assert.throws(() => new ToolsetCatalog({ custom: { '': {} } }), /non-empty/)
  assert.throws(() => new ToolsetCatalog({ custom: { x: { tools: 'read_file' as unknown as string[] } } }), /tools must be an array/)
  assert.throws(() => new ToolsetCatalog({ custom: { x: { includes: [''] } } }), /includes must be an array of non-empty strings/)
  assert.throws(() => new ToolsetCatalog({ custom: { x: { description: 5 as unknown as string } } }), /description must be a string/)
  assert.throws(() => new ToolsetCatalog({ custom: { x: null as unknown as object } }), /must be an object/)
  assert.throws(() => new ToolsetCatalog({ custom: [] as unknown as Record<string, never> }), /must be an object/)
  assert.doesNotThrow(() => new ToolsetCatalog({ custom: { self: { includes: ['self'] } } }))
})

test('definitions handed out cannot corrupt the catalog', () => {
  const config = { mine: { tools: ['read_file'], includes: ['web'] } }
  const catalog = new ToolsetCatalog({ custom: config })
  const snapshot = gateway().snapshot()
  config.mine.tools.push('write_file')
  const mine = catalog.definition('mine', snapshot)!
  assert.throws(() => { (mine.tools as string[]).push('terminal') }, TypeError)
  assert.throws(() => { (catalog.definition('all', snapshot)!.tools as string[]).push('x') }, TypeError)
  assert.deepEqual(catalog.resolve(['mine'], snapshot), ['read_file', 'web_extract', 'web_search'])
  const selected = catalog.select(snapshot)
  selected.length = 0
  assert.equal(catalog.select(snapshot).length, snapshot.tools.size)
  assert.equal(catalog.definition('nope', snapshot), undefined)
})

test('describe lists every toolset for operators, sorted, with kind, tools, includes and aliases', () => {
  const catalog = new ToolsetCatalog({ custom: { research: { description: 'Look things up', includes: ['safe', 'mcp-docs'] } } })
  const info = catalog.describe(gateway().snapshot())
  assert.deepEqual(info.map((t) => [t.name, t.kind]), [
    ['acme', 'registry'], ['debugging', 'builtin'], ['file', 'builtin'], ['mcp-foo', 'registry'],
    ['research', 'custom'], ['results', 'builtin'], ['safe', 'builtin'], ['terminal', 'builtin'], ['web', 'builtin']
  ])
  const byName = new Map(info.map((t) => [t.name, t]))
  assert.deepEqual(byName.get('terminal'), {
    name: 'terminal', kind: 'builtin', description: byName.get('terminal')!.description, tools: [], includes: [], aliases: [], missingIncludes: []
  })
  assert.ok(byName.get('terminal')!.description.length > 0)
  assert.deepEqual(byName.get('mcp-foo')?.aliases, ['foo'])
  assert.deepEqual(byName.get('mcp-foo')?.tools, ['mcp__foo__add', 'mcp__foo__echo'])
  assert.deepEqual(byName.get('debugging')?.includes, ['terminal', 'web', 'file', 'results'])
  assert.deepEqual(byName.get('debugging')?.tools, ['read_file', 'web_extract', 'web_search', 'write_file'])
  assert.deepEqual(byName.get('research'), {
    name: 'research',
    kind: 'custom',
    description: 'Look things up',
    tools: ['web_extract', 'web_search'],
    includes: ['safe', 'mcp-docs'],
    aliases: [],
    missingIncludes: ['mcp-docs']
  })
})
