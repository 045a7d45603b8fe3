import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type { McpServerConfig } from '../../src/config/schema.ts'
import type { McpConnectionTuning } from '../../src/mcp-client/tuning.ts'
import type { RegistryChange } from '../../src/registry/types.ts'
import { createMcpHarness, type McpHarness } from './helpers/harness.ts'
import { TestMcpHttpServer, type TestTool } from './helpers/http-server.ts'
import { until, waitForState } from './helpers/wait.ts'
import { toolNames } from '../helpers/tools.ts'

const NUMBERS = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] }

function tools (): Record<string, TestTool> {
  return {
    add: {
      description: 'Adds two numbers',
      inputSchema: NUMBERS,
      run: ({ a, b }) => ({ content: [{ type: 'text', text: String(Number(a) + Number(b)) }], structuredContent: { sum: Number(a) + Number(b) } })
    },
    fail: { description: 'Always fails', run: () => ({ content: [{ type: 'text', text: 'nope, disk full' }], isError: true }) },
    hang: {
      description: 'Never answers',
      // Settles only when cancelled, so the server is left clean.
      run: (_args, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ content: [] }), { once: true }))
    }
  }
}

async function setup (t: TestContext, config: Partial<McpServerConfig> = {}, tuning: Partial<McpConnectionTuning> = {}): Promise<{ server: TestMcpHttpServer, h: McpHarness }> {
  const server = new TestMcpHttpServer(tools())
  await server.start()
  const h = await createMcpHarness({ remote: { url: server.url, ...config } as McpServerConfig }, {
    tuning: { backoffBaseMs: 20, pingIntervalMs: 0, ...tuning },
    debounceMs: 50
  })
  t.after(async () => {
    await h.manager.stop()
    await server.close()
  })
  h.manager.start()
  await h.manager.ready()
  return { server, h }
}

/** A server's refresh is one batch change: the names it registered and removed. */
function registered (change: RegistryChange, name: string): boolean {
  return change.type === 'batch' && change.registered.includes(name)
}

function registryChange (h: McpHarness, predicate: (change: RegistryChange) => boolean): Promise<RegistryChange> {
  return new Promise((resolve) => {
    const listener = (change: RegistryChange): void => {
      if (!predicate(change)) return
      h.registry.off('change', listener)
      resolve(change)
    }
    h.registry.on('change', listener)
  })
}

test('tools of a Streamable HTTP server register and round-trip; structuredContent and isError are mapped', async (t) => {
  const { h } = await setup(t)
  assert.deepEqual(toolNames(h.registry), ['mcp__remote__add', 'mcp__remote__fail', 'mcp__remote__hang'],
    'no utility tools: the server offers neither resources nor prompts')
  assert.equal(h.manager.states()[0].transport, 'http')

  const sum = await h.call('mcp__remote__add', { a: 2, b: '3' })
  assert.equal(sum.status, 'ok')
  assert.equal(sum.content, '{"sum":5}')

  const fail = await h.call('mcp__remote__fail', {})
  assert.equal(fail.status, 'error')
  assert.equal(fail.ok, false)
  assert.equal(fail.content, '{"error":"nope, disk full"}')
  assert.equal(fail.error?.message, 'nope, disk full')
})

test('configured headers are sent with every request', async (t) => {
  const { server, h } = await setup(t, { headers: { Authorization: 'Bearer s3cret', 'X-Team': 'tools' } })
  assert.equal((await h.call('mcp__remote__add', { a: 1, b: 2 })).status, 'ok')
  assert.equal(server.lastHeaders.authorization, 'Bearer s3cret')
  assert.equal(server.lastHeaders['x-team'], 'tools')
})

test('arguments are validated by the gateway before the server sees them', async (t) => {
  const { server, h } = await setup(t)
  const before = server.count('tools/call', 'add')
  const invalid = await h.call('mcp__remote__add', { a: 'two', b: 1 })
  assert.equal(invalid.status, 'invalid')
  assert.match(invalid.content, /\/a: must be number/)
  assert.equal(server.count('tools/call', 'add'), before, 'the server never saw the invalid call')
  const valid = await h.call('mcp__remote__add', { a: 1, b: 1 })
  assert.equal(valid.status, 'ok')
  assert.equal(server.count('tools/call', 'add'), before + 1)
})

test('list_changed: tools added, updated and removed at runtime; the generation and the definitions ETag move', async (t) => {
  const { server, h } = await setup(t)
  const { definitions } = h
  const first = await definitions.build(toolNames(h.registry))
  const generation = h.registry.generation

  const added = registryChange(h, (c) => registered(c, 'mcp__remote__multiply'))
  server.addTool('multiply', { description: 'Multiplies', inputSchema: NUMBERS, run: ({ a, b }) => ({ content: [{ type: 'text', text: String(Number(a) * Number(b)) }] }) })
  await added
  assert.ok(h.registry.generation > generation)
  const second = await definitions.build(toolNames(h.registry))
  assert.notEqual(second.etag, first.etag)
  assert.ok(second.tools.some((d) => d.function.name === 'mcp__remote__multiply'))
  assert.equal((await h.call('mcp__remote__multiply', { a: 6, b: 7 })).content, '42')

  const updated = registryChange(h, (c) => registered(c, 'mcp__remote__multiply'))
  server.updateTool('multiply', 'Multiplies two numbers, now documented')
  await updated
  assert.equal(h.registry.getEntry('mcp__remote__multiply')?.description, 'Multiplies two numbers, now documented')

  const removed = registryChange(h, (c) => c.type === 'batch' && c.deregistered.includes('mcp__remote__add'))
  server.removeTool('add')
  await removed
  assert.equal(h.registry.getEntry('mcp__remote__add'), undefined)
  const third = await definitions.build(toolNames(h.registry))
  assert.ok(!third.tools.some((d) => d.function.name === 'mcp__remote__add'))
  assert.equal((await h.call('mcp__remote__add', { a: 1, b: 2 })).status, 'not_found')
})

test('a burst of list_changed notifications costs one tools/list (debounced)', async (t) => {
  const { server, h } = await setup(t)
  const lists = server.count('tools/list')
  const last = registryChange(h, (c) => registered(c, 'mcp__remote__t4'))
  for (let i = 0; i < 5; i++) server.addTool(`t${i}`, { run: () => ({ content: [{ type: 'text', text: String(i) }] }) })
  await last
  assert.deepEqual(toolNames(h.registry).filter((n) => /__t\d$/.test(n)), ['mcp__remote__t0', 'mcp__remote__t1', 'mcp__remote__t2', 'mcp__remote__t3', 'mcp__remote__t4'])
  assert.equal(server.count('tools/list'), lists + 1)
})

test('a call that hangs times out (504) and the server receives a cancellation', async (t) => {
  const { server, h } = await setup(t, { timeoutMs: 300 })
  assert.equal(h.registry.getEntry('mcp__remote__hang')?.timeoutMs, 300)
  const { outcome, httpStatus } = await h.answer('mcp__remote__hang', {})
  assert.equal(outcome.status, 'timeout')
  assert.equal(httpStatus, 504)
  assert.match(outcome.content, /timed out after 300 ms/)
  await until(() => server.cancelled.some((c) => c.tool === 'hang'), 'the server to see the cancellation')
  const call = server.received.find((m) => m.method === 'tools/call' && m.params?.name === 'hang')!
  const notice = server.received.find((m) => m.method === 'notifications/cancelled')
  assert.equal(notice?.params?.requestId, call.id, 'notifications/cancelled names the request')
  // A timeout makes the gateway check the server is alive; it is, so it stays connected.
  await until(() => server.count('ping') > 0, 'a liveness ping')
  assert.equal(h.manager.states()[0].state, 'connected')
  assert.equal((await h.call('mcp__remote__add', { a: 1, b: 2 })).status, 'ok')
})

test('a server that crashes: tools unavailable with a reason, calls fail fast, recovery after it comes back', async (t) => {
  const { server, h } = await setup(t, {}, { failureThreshold: 1000 })
  const connection = h.manager.connection('remote')!
  await server.crash()
  const during = await h.call('mcp__remote__add', { a: 1, b: 2 })
  assert.equal(during.status, 'error', 'the call in flight learns the server went away')
  assert.match(during.content, /MCP server \\"remote\\" went away/)
  assert.notEqual(connection.state, 'connected')

  const started = Date.now()
  const { outcome: next, httpStatus } = await h.answer('mcp__remote__add', { a: 1, b: 2 })
  assert.equal(next.status, 'unavailable')
  assert.equal(httpStatus, 503)
  assert.match(next.content, /MCP server \\"remote\\" is reconnecting: /)
  assert.ok(Date.now() - started < 1000, 'fails fast')
  const verdict = await h.availability.tool(h.registry.getEntry('mcp__remote__add')!)
  assert.equal(verdict.available, false)
  assert.match(verdict.reason!, /reconnecting/)
  assert.equal(h.manager.states()[0].state, 'reconnecting')

  await server.restart()
  await waitForState(connection, 'connected')
  const after = await h.call('mcp__remote__add', { a: 1, b: 2 })
  assert.equal(after.status, 'ok')
  assert.deepEqual(toolNames(h.registry), ['mcp__remote__add', 'mcp__remote__fail', 'mcp__remote__hang'])
})

test('a server that stops answering is found by the health ping and reconnected once it answers again', async (t) => {
  const { server, h } = await setup(t, { connectTimeoutMs: 300 }, { pingIntervalMs: 100, pingTimeoutMs: 200, failureThreshold: 1000 })
  const connection = h.manager.connection('remote')!
  server.frozen = true
  await waitForState(connection, 'reconnecting')
  assert.match(connection.lastError!, /stopped answering/)
  const outcome = await h.call('mcp__remote__add', { a: 1, b: 2 })
  assert.equal(outcome.status, 'unavailable')
  server.frozen = false
  await waitForState(connection, 'connected')
  assert.equal((await h.call('mcp__remote__add', { a: 1, b: 2 })).status, 'ok')
})
