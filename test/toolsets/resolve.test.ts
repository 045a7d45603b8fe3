import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BUILTIN_TOOLSETS, getBuiltinToolset, type ToolsetDefinition } from '../../src/toolsets/builtin.ts'
import { resolveToolset } from '../../src/toolsets/resolve.ts'

function def (tools: string[], includes: string[] = []): ToolsetDefinition {
  return { description: 'test', tools, includes }
}

/** A lookup over a plain table that counts how often each toolset is looked up. */
function table (defs: Record<string, ToolsetDefinition>): { lookup: (name: string) => ToolsetDefinition | undefined, calls: Map<string, number> } {
  const calls = new Map<string, number>()
  return {
    calls,
    lookup: (name) => {
      calls.set(name, (calls.get(name) ?? 0) + 1)
      return Object.hasOwn(defs, name) ? defs[name] : undefined
    }
  }
}

test('a simple toolset resolves to its own tools, sorted and unique', () => {
  const { lookup } = table({ a: def(['zeta', 'alpha', 'zeta', 'mid']) })
  assert.deepEqual(resolveToolset('a', lookup), ['alpha', 'mid', 'zeta'])
})

test('includes are followed recursively', () => {
  const { lookup } = table({ top: def(['t'], ['mid']), mid: def(['m'], ['leaf']), leaf: def(['l']) })
  assert.deepEqual(resolveToolset('top', lookup), ['l', 'm', 't'])
  assert.deepEqual(resolveToolset('mid', lookup), ['l', 'm'])
})

test('a diamond is expanded once: the shared visited set spans siblings', () => {
  const { lookup, calls } = table({ top: def([], ['left', 'right']), left: def(['l'], ['base']), right: def(['r'], ['base']), base: def(['b', 'l']) })
  assert.deepEqual(resolveToolset('top', lookup), ['b', 'l', 'r'])
  assert.equal(calls.get('base'), 1)
  for (const count of calls.values()) assert.equal(count, 1)
})

test('a cycle terminates and yields every tool on it', () => {
  const { lookup, calls } = table({ a: def(['x'], ['b']), b: def(['y'], ['c']), c: def(['z'], ['a']) })
  assert.deepEqual(resolveToolset('b', lookup), ['x', 'y', 'z'])
  assert.deepEqual([...calls.values()], [1, 1, 1])
})

test('a self-include terminates', () => {
  const { lookup, calls } = table({ me: def(['only'], ['me', 'me']) })
  assert.deepEqual(resolveToolset('me', lookup), ['only'])
  assert.equal(calls.get('me'), 1)
})

test('an unknown include is ignored by the pure resolver; an unknown root yields nothing', () => {
  const { lookup } = table({ a: def(['x'], ['ghost', 'b']), b: def(['y']) })
  assert.deepEqual(resolveToolset('a', lookup), ['x', 'y'])
  assert.deepEqual(resolveToolset('ghost', lookup), [])
})

test('names on the object prototype are not toolsets', () => {
  const { lookup } = table({ a: def(['x'], ['toString', 'constructor']) })
  assert.deepEqual(resolveToolset('a', lookup), ['x'])
  assert.equal(getBuiltinToolset('toString'), undefined)
  assert.equal(getBuiltinToolset('__proto__'), undefined)
})

test('a visited set passed in is used and filled, so united calls skip what is done', () => {
  const { lookup } = table({ a: def(['x'], ['b']), b: def(['y']) })
  const visited = new Set<string>()
  assert.deepEqual(resolveToolset('a', lookup, visited), ['x', 'y'])
  assert.deepEqual([...visited].sort(), ['a', 'b'])
  assert.deepEqual(resolveToolset('b', lookup, visited), [])
})

test('builtins: safe is web (+ results), debugging is terminal + web + file (+ results)', () => {
  const lookup = getBuiltinToolset
  assert.deepEqual(resolveToolset('file', lookup), ['patch', 'read_file', 'search_files', 'write_file'])
  assert.deepEqual(resolveToolset('web', lookup), ['web_extract', 'web_search'])
  assert.deepEqual(resolveToolset('terminal', lookup), ['process', 'terminal'])
  assert.deepEqual(resolveToolset('results', lookup), ['read_result'])
  assert.deepEqual(resolveToolset('safe', lookup), ['read_result', 'web_extract', 'web_search'])
  assert.deepEqual(BUILTIN_TOOLSETS.safe.tools, [])
  assert.deepEqual(BUILTIN_TOOLSETS.safe.includes, ['web', 'results'])
  assert.deepEqual(resolveToolset('debugging', lookup),
    ['patch', 'process', 'read_file', 'read_result', 'search_files', 'terminal', 'web_extract', 'web_search', 'write_file'])
})

test('builtins are deep-frozen and described', () => {
  assert.ok(Object.isFrozen(BUILTIN_TOOLSETS))
  for (const [name, definition] of Object.entries(BUILTIN_TOOLSETS)) {
    assert.ok(Object.isFrozen(definition), name)
    assert.ok(Object.isFrozen(definition.tools), name)
    assert.ok(Object.isFrozen(definition.includes), name)
    assert.ok(definition.description.length > 20, name)
    for (const include of definition.includes) assert.ok(getBuiltinToolset(include), `${name} includes builtin ${include}`)
  }
  assert.throws(() => { (BUILTIN_TOOLSETS.file.tools as string[]).push('rm') }, TypeError)
})
