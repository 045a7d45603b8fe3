import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ToolRegistry } from '../../src/registry/registry.ts'
import type { RegistryChange } from '../../src/registry/types.ts'
import { fixtureTool, toolNames } from '../helpers/tools.ts'
import { captureLogger } from '../helpers/logger.ts'

test('register stores an entry with the documented defaults', () => {
  const registry = new ToolRegistry()
  const entry = registry.register(fixtureTool('echo'))
  assert.equal(entry.name, 'echo')
  assert.equal(entry.toolset, 'testing')
  assert.equal(entry.description, 'The echo fixture tool', 'description falls back to schema.description')
  assert.equal(entry.emoji, '⚡')
  assert.equal(entry.maxResultSizeChars, 100_000)
  assert.deepEqual(entry.requiresEnv, [])
  assert.deepEqual(entry.origin, { kind: 'builtin' })
  assert.ok(Object.isFrozen(entry))
})

test('an explicit description wins over the schema one, and an empty emoji counts as unset', () => {
  const registry = new ToolRegistry()
  const entry = registry.register(fixtureTool('echo', { description: 'explicit', emoji: '' }))
  assert.equal(entry.description, 'explicit')
  assert.equal(entry.emoji, '⚡')
  const bare = registry.register(fixtureTool('bare', { schema: { parameters: { type: 'object' } } }))
  assert.equal(bare.description, '')
})

test('registration refuses bad names and non-object schemas, saying what is wrong', () => {
  const registry = new ToolRegistry()
  for (const name of ['', 'has space', 'dots.not.allowed', 'x'.repeat(65), 'ünïcode']) {
    assert.throws(() => registry.register(fixtureTool(name)), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'GW_ERR_INVALID_TOOL')
      assert.match(err.message, /name .* must match/)
      return true
    }, `name ${JSON.stringify(name)}`)
  }
  assert.doesNotThrow(() => registry.register(fixtureTool('a'.repeat(64))))
  assert.doesNotThrow(() => registry.register(fixtureTool('Mixed_Case-1')))
  assert.throws(() => registry.register(fixtureTool('arr', { schema: { parameters: { type: 'array' } } })),
    /schema\.parameters\.type must be "object" \(got "array"\)/)
  assert.throws(() => registry.register(fixtureTool('none', { schema: { parameters: undefined as never } })),
    /schema\.parameters must be a JSON Schema object/)
  assert.throws(() => registry.register(fixtureTool('nohandler', { handler: 'x' as never })), /handler must be a function/)
  assert.throws(() => registry.register(fixtureTool('size', { maxResultSizeChars: -1 })), /maxResultSizeChars/)
  assert.throws(() => registry.register(fixtureTool('time', { timeoutMs: 0 })), /timeoutMs/)
  assert.throws(() => registry.register(fixtureTool('', { toolset: '' })), /name .*; toolset must be a non-empty string/,
    'every problem is listed at once')
  assert.doesNotThrow(() => registry.register(fixtureTool('inf', { maxResultSizeChars: Infinity })))
  assert.deepEqual(toolNames(registry).sort(), ['Mixed_Case-1', 'a'.repeat(64), 'inf'].sort())
})

test('same name, same toolset and same source replaces the entry', () => {
  const registry = new ToolRegistry()
  registry.register(fixtureTool('echo', { description: 'first' }))
  registry.register(fixtureTool('echo', { description: 'second' }))
  assert.equal(registry.getEntry('echo')?.description, 'second')
  assert.deepEqual(toolNames(registry), ['echo'])
})

test('same name in a different toolset is refused unless override, which logs a warning', () => {
  const { logger, lines } = captureLogger()
  const registry = new ToolRegistry({ logger })
  registry.register(fixtureTool('echo', { toolset: 'file' }))
  assert.throws(() => registry.register(fixtureTool('echo', { toolset: 'web' })), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'GW_ERR_TOOL_COLLISION')
    assert.match(err.message, /toolset "file".*already has it; pass override: true/)
    return true
  })
  assert.equal(registry.getEntry('echo')?.toolset, 'file', 'a refused registration changes nothing')
  registry.register(fixtureTool('echo', { toolset: 'web', override: true }))
  assert.equal(registry.getEntry('echo')?.toolset, 'web')
  assert.ok(lines().some((l) => l.msg === 'tool overridden' && l.from === 'file' && l.to === 'web'))
})

test('a different source reusing a name in the same toolset must also say override', () => {
  const registry = new ToolRegistry()
  registry.register(fixtureTool('read_file', { toolset: 'file' }))
  const plugin = { kind: 'plugin' as const, plugin: 'audit', allowToolOverride: true }
  assert.throws(() => registry.register(fixtureTool('read_file', { toolset: 'file', origin: plugin })), /override: true/)
  registry.register(fixtureTool('read_file', { toolset: 'file', origin: plugin, override: true }))
  assert.deepEqual(registry.getEntry('read_file')?.origin, plugin)
})

test('a plugin may override only with the operator opt-in', () => {
  const registry = new ToolRegistry()
  registry.register(fixtureTool('echo', { toolset: 'file' }))
  const denied = { kind: 'plugin' as const, plugin: 'rogue', allowToolOverride: false }
  assert.throws(() => registry.register(fixtureTool('echo', { toolset: 'rogue', origin: denied, override: true })),
    /plugin "rogue" cannot override "echo".*allowToolOverride/)
  const allowed = { kind: 'plugin' as const, plugin: 'trusted', allowToolOverride: true }
  registry.register(fixtureTool('echo', { toolset: 'trusted', origin: allowed, override: true }))
  assert.equal(registry.getEntry('echo')?.toolset, 'trusted')
})

test('MCP tools never override, not even other MCP servers, but a server refreshes its own', () => {
  const registry = new ToolRegistry()
  registry.register(fixtureTool('echo', { toolset: 'file' }))
  const a = { kind: 'mcp' as const, server: 'a' }
  const b = { kind: 'mcp' as const, server: 'b' }
  assert.throws(() => registry.register(fixtureTool('echo', { toolset: 'mcp-a', origin: a, override: true })), /MCP tools never override/)
  registry.register(fixtureTool('mcp__a__x', { toolset: 'mcp-a', origin: a }))
  assert.throws(() => registry.register(fixtureTool('mcp__a__x', { toolset: 'mcp-b', origin: b, override: true })), /MCP server "a"/)
  registry.register(fixtureTool('mcp__a__x', { toolset: 'mcp-a', origin: a, description: 'refreshed' }))
  assert.equal(registry.getEntry('mcp__a__x')?.description, 'refreshed')
})

test('deregister removes the tool; an unknown name is a no-op', () => {
  const registry = new ToolRegistry()
  registry.register(fixtureTool('echo'))
  const generation = registry.generation
  assert.equal(registry.deregister('missing'), false)
  assert.equal(registry.generation, generation, 'a no-op does not move the generation')
  assert.equal(registry.deregister('echo'), true)
  assert.equal(registry.getEntry('echo'), undefined)
})

test('the last tool of a toolset takes its check and aliases with it', () => {
  const registry = new ToolRegistry()
  const check = () => true
  registry.register(fixtureTool('one', { toolset: 'mcp-srv', checkFn: check }))
  registry.register(fixtureTool('two', { toolset: 'mcp-srv', checkFn: () => false }))
  registry.registerAlias('srv', 'mcp-srv')
  assert.equal(registry.snapshot().toolsetChecks.get('mcp-srv'), check, 'the first check registered answers for the toolset')
  registry.deregister('one')
  assert.equal(registry.snapshot().toolsetChecks.get('mcp-srv'), check, 'still one tool left')
  assert.equal(registry.snapshot().aliases.get('srv'), 'mcp-srv')
  registry.deregister('two')
  assert.equal(registry.snapshot().toolsetChecks.has('mcp-srv'), false)
  assert.equal(registry.snapshot().aliases.has('srv'), false)
})

test('moving a tool to another toolset by override drops the emptied toolset', () => {
  const registry = new ToolRegistry()
  registry.register(fixtureTool('echo', { toolset: 'old', checkFn: () => true }))
  registry.registerAlias('legacy', 'old')
  registry.register(fixtureTool('echo', { toolset: 'new', override: true }))
  assert.equal(registry.snapshot().toolsetChecks.has('old'), false)
  assert.equal(registry.snapshot().aliases.has('legacy'), false)
})

test('aliases are refused when they would dangle or shadow', () => {
  const registry = new ToolRegistry()
  registry.register(fixtureTool('a', { toolset: 'mcp-x' }))
  registry.register(fixtureTool('b', { toolset: 'web' }))
  assert.throws(() => registry.registerAlias('ghost', 'nothing'), /has no registered tools/)
  assert.throws(() => registry.registerAlias('web', 'mcp-x'), /"web" is already a toolset/)
  registry.registerAlias('x', 'mcp-x')
  const generation = registry.generation
  registry.registerAlias('x', 'mcp-x')
  assert.equal(registry.generation, generation, 'an identical alias is not a change')
  registry.register(fixtureTool('c', { toolset: 'mcp-y' }))
  assert.throws(() => registry.registerAlias('x', 'mcp-y'), /already names toolset "mcp-x"/)
})

test('every mutation moves the generation and emits exactly one change event', () => {
  const registry = new ToolRegistry()
  const events: RegistryChange[] = []
  registry.on('change', (change) => events.push(change))
  registry.register(fixtureTool('a', { toolset: 'mcp-s' }))
  registry.register(fixtureTool('a', { toolset: 'mcp-s' }))
  registry.registerAlias('s', 'mcp-s')
  registry.deregister('a')
  assert.deepEqual(events.map((e) => [e.type, e.generation]), [['register', 1], ['register', 2], ['alias', 3], ['deregister', 4]])
  assert.equal(events[1].type === 'register' && events[1].replaced, true)
  assert.equal(registry.generation, 4)
  assert.throws(() => registry.register(fixtureTool('bad name')))
  assert.equal(events.length, 4, 'a refused registration emits nothing')
})

test('a snapshot stays consistent while the registry changes under it', () => {
  const registry = new ToolRegistry()
  registry.register(fixtureTool('a'))
  const before = registry.snapshot()
  registry.register(fixtureTool('b'))
  registry.deregister('a')
  assert.deepEqual([...before.tools.keys()], ['a'])
  assert.equal(before.generation, 1)
  assert.deepEqual([...registry.snapshot().tools.keys()], ['b'])
  assert.ok(Object.isFrozen(before))
})

test('an entry takes the default emoji and result cap unless it sets its own; unknown names answer undefined', () => {
  const registry = new ToolRegistry()
  registry.register(fixtureTool('zeta', { toolset: 'web', emoji: '🌐', maxResultSizeChars: 500 }))
  registry.register(fixtureTool('alpha', { toolset: 'file', emoji: '' }))
  assert.deepEqual(toolNames(registry), ['alpha', 'zeta'])
  assert.equal(registry.getEntry('nope'), undefined)
  assert.deepEqual([registry.getEntry('zeta')?.emoji, registry.getEntry('zeta')?.maxResultSizeChars], ['🌐', 500])
  assert.deepEqual([registry.getEntry('alpha')?.emoji, registry.getEntry('alpha')?.maxResultSizeChars], ['⚡', 100_000])
})

test('update applies many changes as one: one snapshot, one generation, one batch event', () => {
  const registry = new ToolRegistry()
  registry.register(fixtureTool('old', { toolset: 'gone' }))
  registry.registerAlias('legacy', 'gone')
  const changes: RegistryChange[] = []
  registry.on('change', (change) => changes.push(change))
  const generation = registry.generation
  registry.update((batch) => {
    for (let i = 0; i < 500; i++) batch.register(fixtureTool(`t${i}`, { toolset: 'many' }))
    batch.deregister('old')
    assert.equal(batch.deregister('never-there'), false)
  })
  assert.equal(registry.generation, generation + 1)
  assert.equal(changes.length, 1)
  const change = changes[0]
  assert.equal(change.type, 'batch')
  if (change.type !== 'batch') return
  assert.equal(change.registered.length, 500)
  assert.deepEqual(change.deregistered, ['old'])
  assert.equal(toolNames(registry).length, 500)
  assert.equal(registry.snapshot().aliases.has('legacy'), false, 'the emptied toolset takes its alias with it')
})

test('update: a refused registration throws inside the batch and the others still land; a throwing batch changes nothing', () => {
  const registry = new ToolRegistry()
  registry.register(fixtureTool('taken', { toolset: 'builtin-set' }))
  const refused: string[] = []
  registry.update((batch) => {
    batch.register(fixtureTool('fine', { toolset: 'mcp-srv', origin: { kind: 'mcp', server: 'srv' } }))
    try {
      batch.register(fixtureTool('taken', { toolset: 'mcp-srv', origin: { kind: 'mcp', server: 'srv' } }))
    } catch (err) {
      refused.push((err as Error).message)
    }
  })
  assert.deepEqual(toolNames(registry), ['fine', 'taken'])
  assert.equal(registry.getEntry('taken')?.toolset, 'builtin-set')
  assert.match(refused[0], /MCP tools never override/)

  const generation = registry.generation
  assert.throws(() => registry.update((batch) => {
    batch.deregister('fine')
    throw new Error('changed my mind')
  }), /changed my mind/)
  assert.equal(registry.generation, generation)
  assert.deepEqual(toolNames(registry), ['fine', 'taken'])

  registry.update(() => {})
  assert.equal(registry.generation, generation, 'an empty batch is no change')
})
