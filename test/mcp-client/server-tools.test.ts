import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import type { Tool } from '@modelcontextprotocol/client'
import type { McpServerConfig } from '../../src/config/schema.ts'
import { McpConnection } from '../../src/mcp-client/connection.ts'
import { McpServerTools, type ToolFilter } from '../../src/mcp-client/server-tools.ts'
import { ToolRegistry } from '../../src/registry/registry.ts'
import { captureLogger, type CapturedLogger } from '../helpers/logger.ts'
import { everythingConfig } from './helpers/harness.ts'
import { TestMcpHttpServer } from './helpers/http-server.ts'
import { toolNames } from '../helpers/tools.ts'

let server: TestMcpHttpServer
let connection: McpConnection

before(async () => {
  server = new TestMcpHttpServer({ ping: { run: () => ({ content: [{ type: 'text', text: 'pong' }] }) } })
  await server.start()
  connection = new McpConnection({ server: 'srv', config: { url: server.url } as McpServerConfig, logger: captureLogger('silent').logger, tuning: { pingIntervalMs: 0 } })
  await connection.start()
  assert.equal(connection.state, 'connected')
})

after(async () => {
  await connection.close()
  await server.close()
})

function tool (name: string, extra: Partial<Tool> = {}): Tool {
  return { name, inputSchema: { type: 'object', properties: {} }, ...extra } as Tool
}

function sync (filter?: ToolFilter, registry = new ToolRegistry(), log: CapturedLogger = captureLogger('debug'), name = 'srv', on = connection): { tools: McpServerTools, registry: ToolRegistry, log: CapturedLogger } {
  const tools = new McpServerTools({ server: name, connection: on, registry, logger: log.logger, filter, timeoutMs: 1234 })
  return { tools, registry, log }
}

test('include wins over exclude, on raw names; without include, exclude removes', (t) => {
  const a = sync({ include: ['keep-me', 'also'], exclude: ['keep-me', 'other'] })
  t.after(() => a.tools.dispose())
  a.tools.apply([tool('keep-me'), tool('other'), tool('also'), tool('third')])
  assert.deepEqual(toolNames(a.registry), ['mcp__srv__also', 'mcp__srv__keep_me'])

  const b = sync({ exclude: ['other'] })
  t.after(() => b.tools.dispose())
  b.tools.apply([tool('keep-me'), tool('other'), tool('third')])
  assert.deepEqual(toolNames(b.registry), ['mcp__srv__keep_me', 'mcp__srv__third'])
})

test('include and exclude names that match no tool warn once, with the closest names; fixed by the server, the warning goes', (t) => {
  const { tools, registry, log } = sync({ exclude: ['delete-fiel', 'gone'] })
  t.after(() => tools.dispose())
  const warnings = () => log.lines().filter((l) => l.level === 40 && /match no tool/.test(String(l.msg)))
  tools.apply([tool('delete-file'), tool('read')])
  assert.deepEqual(toolNames(registry), ['mcp__srv__delete_file', 'mcp__srv__read'], 'the misspelt exclude excluded nothing')
  assert.equal(warnings().length, 1)
  assert.equal(warnings()[0].msg, 'tools.exclude "delete-fiel" (did you mean "delete-file"?), "gone" match no tool of the server, so they exclude nothing')
  tools.apply([tool('delete-file'), tool('read')])
  assert.equal(warnings().length, 1, 'the same list again: not said twice')
  tools.apply([tool('delete-fiel'), tool('gone')])
  assert.equal(warnings().length, 1, 'every name matches now: nothing to say')

  const included = sync({ include: ['reed'] })
  t.after(() => included.tools.dispose())
  included.tools.apply([tool('read')])
  assert.deepEqual(toolNames(included.registry), [], 'nothing matched the include')
  assert.match(String(included.log.lines().find((l) => l.level === 40)?.msg), /^tools\.include "reed" \(did you mean "read"\?\) match no tool of the server, so nothing is served under them$/)
})

test('two raw names that sanitise alike are both refused, with an error naming both', (t) => {
  const { tools, registry, log } = sync()
  t.after(() => tools.dispose())
  const report = tools.apply([tool('get-file'), tool('get.file'), tool('fine')])
  assert.deepEqual(toolNames(registry), ['mcp__srv__fine'])
  assert.deepEqual(report.skipped.map((s) => s.tool), ['get-file', 'get.file'])
  const line = log.lines().find((l) => l.level === 50 && /collide/.test(String(l.msg)))
  assert.ok(line, 'an error line')
  assert.match(String(line.msg), /"get-file" and "get\.file" all map to "mcp__srv__get_file"/)
})

test('an MCP tool never shadows a built-in: that one is skipped and logged, the others register', (t) => {
  const registry = new ToolRegistry()
  const builtin = registry.register({
    name: 'mcp__srv__read', toolset: 'files', schema: { description: 'built-in', parameters: { type: 'object' } }, handler: () => 'builtin'
  })
  const { tools, log } = sync(undefined, registry)
  t.after(() => tools.dispose())
  const report = tools.apply([tool('read'), tool('write')])
  assert.equal(registry.getEntry('mcp__srv__read'), builtin, 'the built-in is untouched')
  assert.ok(registry.getEntry('mcp__srv__write'))
  assert.equal(report.skipped[0].tool, 'read')
  assert.match(report.skipped[0].reason, /MCP tools never override/)
  assert.ok(log.lines().some((l) => l.msg === 'MCP tool not registered' && l.tool === 'mcp__srv__read'))
})

test('nor another server\'s tool: the second server to claim a name is refused', (t) => {
  const registry = new ToolRegistry()
  const first = sync(undefined, registry, captureLogger('silent'), 'a')
  const second = sync(undefined, registry, captureLogger('silent'), 'a__b')
  t.after(() => { first.tools.dispose(); second.tools.dispose() })
  first.tools.apply([tool('b__c')])
  const report = second.tools.apply([tool('c')])
  assert.deepEqual(registry.snapshot().tools.get('mcp__a__b__c')?.origin, { kind: 'mcp', server: 'a' })
  assert.match(report.skipped[0].reason, /already provided by MCP server "a"/)
})

test('a tool with an absurd schema is skipped with the reason; the others register', (t) => {
  let deep: Record<string, unknown> = { type: 'string' }
  for (let i = 0; i < 80; i++) deep = { type: 'object', properties: { x: deep } }
  const { tools, registry, log } = sync()
  t.after(() => tools.dispose())
  const report = tools.apply([tool('deep', { inputSchema: deep as Tool['inputSchema'] }), tool('flat')])
  assert.deepEqual(toolNames(registry), ['mcp__srv__flat'])
  assert.match(report.skipped[0].reason, /nested deeper than 64 levels/)
  assert.ok(log.lines().some((l) => l.msg === 'MCP tool skipped' && l.level === 40))
})

test('registration details: toolset, alias, origin, timeout, description with title, one shared probe', (t) => {
  const { tools, registry } = sync()
  t.after(() => tools.dispose())
  tools.apply([tool('one', { title: 'The One', description: 'does one thing' }), tool('two')])
  const snapshot = registry.snapshot()
  const one = snapshot.tools.get('mcp__srv__one')!
  const two = snapshot.tools.get('mcp__srv__two')!
  assert.equal(one.toolset, 'mcp-srv')
  assert.equal(snapshot.aliases.get('srv'), 'mcp-srv')
  assert.deepEqual(one.origin, { kind: 'mcp', server: 'srv' })
  assert.equal(one.timeoutMs, 1234)
  assert.equal(one.description, 'The One: does one thing')
  assert.equal(two.description, 'Tool "two" of MCP server "srv".')
  assert.equal(one.checkFn, two.checkFn, 'one probe for the whole server')
  assert.equal(one.checkFn!({ config: undefined }), true)
})

test('diff refresh: the same list changes nothing; a changed tool is replaced; a gone tool is removed', (t) => {
  const { tools, registry } = sync()
  t.after(() => tools.dispose())
  tools.apply([tool('a'), tool('b')])
  const generation = registry.generation
  assert.deepEqual(tools.apply([tool('a'), tool('b')]), { added: [], updated: [], removed: [], skipped: [] })
  assert.equal(registry.generation, generation, 'no change, no new generation')

  const report = tools.apply([tool('a', { description: 'now described' }), tool('c')])
  assert.deepEqual(report, { added: ['mcp__srv__c'], updated: ['mcp__srv__a'], removed: ['mcp__srv__b'], skipped: [] })
  assert.ok(registry.generation > generation)
  assert.equal(registry.getEntry('mcp__srv__a')?.description, 'now described')

  tools.apply([])
  assert.deepEqual(toolNames(registry), [])
  assert.equal(registry.snapshot().aliases.get('srv'), undefined, 'the alias goes with the last tool')
  tools.apply([tool('a')])
  assert.equal(registry.snapshot().aliases.get('srv'), 'mcp-srv', 'and comes back with the first')
})

test('an alias that would collide with an existing toolset is skipped and logged once', (t) => {
  const registry = new ToolRegistry()
  registry.register({ name: 'other', toolset: 'srv', schema: { parameters: { type: 'object' } }, handler: () => '' })
  const { tools, log } = sync(undefined, registry)
  t.after(() => tools.dispose())
  tools.apply([tool('a')])
  tools.apply([tool('a'), tool('b')])
  assert.equal(registry.snapshot().aliases.get('srv'), undefined)
  assert.ok(registry.getEntry('mcp__srv__b'), 'the tools register anyway')
  assert.equal(log.lines().filter((l) => l.msg === 'MCP toolset alias not registered').length, 1)
})

test('the probe reports the connection state with its reason', async () => {
  const other = new McpConnection({ server: 'later', config: { url: server.url } as McpServerConfig, logger: captureLogger('silent').logger, tuning: { pingIntervalMs: 0 } })
  const { tools, registry } = sync(undefined, new ToolRegistry(), captureLogger('silent'), 'later', other)
  await other.start()
  tools.apply([tool('x')])
  const check = registry.getEntry('mcp__later__x')!.checkFn!
  assert.equal(check({ config: undefined }), true)
  await other.close()
  assert.deepEqual(check({ config: undefined }), { available: false, reason: 'MCP server "later" is closed' })
  tools.dispose()
  assert.deepEqual(toolNames(registry), [])
})

test('utility tools appear with the capabilities, and a server tool of the same name wins', async (t) => {
  const everything = new McpConnection({ server: 'ev', config: everythingConfig(), logger: captureLogger('silent').logger, tuning: { pingIntervalMs: 0 } })
  t.after(() => everything.close())
  await everything.start()
  const { tools, registry, log } = sync(undefined, new ToolRegistry(), captureLogger('debug'), 'ev', everything)
  t.after(() => tools.dispose())
  tools.apply([tool('list_prompts', { description: 'the server\'s own' })])
  assert.deepEqual(toolNames(registry), ['mcp__ev__get_prompt', 'mcp__ev__list_prompts', 'mcp__ev__list_resources', 'mcp__ev__read_resource'])
  assert.equal(registry.getEntry('mcp__ev__list_prompts')?.description, 'the server\'s own')
  assert.ok(log.lines().some((l) => l.msg === 'MCP utility tool skipped: the server has a tool of that name'))
})
