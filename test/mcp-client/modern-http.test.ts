// An upstream that speaks only MCP 2026-07-28 over Streamable HTTP (the SDK's createMcpHandler with
// legacy: 'reject'), configured with protocol auto and pinned: it connects (before, its -32022
// answers to initialize opened the circuit), its tools are listed and called, progress and
// cancellation go through, list changes come on subscriptions/listen, and /tools' states say
// which revision is spoken.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { McpServerConfig } from '../../src/config/schema.ts'
import type { McpConnectionTuning } from '../../src/mcp-client/tuning.ts'
import type { ToolProgress } from '../../src/registry/types.ts'
import { createMcpHarness, type McpHarness } from './helpers/harness.ts'
import type { TestTool } from './helpers/http-server.ts'
import { ModernMcpHttpServer, type ModernServerOptions } from './helpers/modern-http-server.ts'
import { until, waitForState } from './helpers/wait.ts'
import { buildTestApp } from '../helpers/app.ts'
import { toolNames } from '../helpers/tools.ts'
import { TestMcpHttpServer } from './helpers/http-server.ts'

const PROTOCOL_META = 'io.modelcontextprotocol/protocolVersion'
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'

function tools (): Record<string, TestTool> {
  return {
    add: {
      description: 'Adds two numbers',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      run: ({ a, b }) => ({ content: [{ type: 'text', text: String(Number(a) + Number(b)) }] })
    },
    steps: {
      description: 'Reports progress twice, then answers',
      run: async (_args, { progress }) => {
        await progress(1, 2)
        await progress(2, 2)
        return { content: [{ type: 'text', text: 'stepped' }] }
      }
    },
    hang: {
      description: 'Never answers',
      run: (_args, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ content: [] }), { once: true }))
    }
  }
}

async function setup (t: TestContext, config: Partial<McpServerConfig> = {}, options: { server?: ModernServerOptions, tuning?: Partial<McpConnectionTuning>, ttlFloorMs?: number } = {}): Promise<{ server: ModernMcpHttpServer, h: McpHarness }> {
  const server = new ModernMcpHttpServer(tools(), options.server)
  await server.start()
  const h = await createMcpHarness({ modern: { url: server.url, ...config } as McpServerConfig }, {
    tuning: { backoffBaseMs: 20, pingIntervalMs: 0, ...options.tuning },
    debounceMs: 20,
    refreshIntervalMs: 50,
    ttlFloorMs: options.ttlFloorMs
  })
  t.after(async () => {
    await h.manager.stop()
    await server.close()
  })
  h.manager.start()
  await h.manager.ready()
  return { server, h }
}

for (const protocol of ['auto', '2026-07-28'] as const) {
  test(`protocol ${protocol}: a modern-only server connects in 2026-07-28, lists and calls its tools, and /tools says so`, async (t) => {
    const { server, h } = await setup(t, { protocol })
    const [status] = h.manager.states()
    assert.equal(status.state, 'connected', status.lastError ?? '')
    assert.equal(status.protocolVersion, '2026-07-28')
    assert.equal(status.protocolEra, 'modern')
    assert.deepEqual(toolNames(h.registry), ['mcp__modern__add', 'mcp__modern__hang', 'mcp__modern__steps'])
    assert.equal(server.count('initialize'), 0, 'no 2025 handshake was tried')
    assert.equal(server.count('server/discover'), 1)

    const sum = await h.call('mcp__modern__add', { a: 2, b: 3 })
    assert.equal(sum.status, 'ok')
    assert.equal(sum.content, '5')
    const call = server.received.find((m) => m.method === 'tools/call')!
    assert.equal((call.params?._meta as Record<string, unknown>)[PROTOCOL_META], '2026-07-28', 'the request carries the revision\'s envelope')
  })
}

test('progress of a modern server reaches the caller who listens', async (t) => {
  const { h } = await setup(t)
  const reports: ToolProgress[] = []
  const outcome = await h.call('mcp__modern__steps', {}, { onProgress: (update) => { reports.push(update) } })
  assert.equal(outcome.status, 'ok')
  assert.equal(outcome.content, 'stepped')
  assert.deepEqual(reports.map(({ progress, total }) => ({ progress, total })), [{ progress: 1, total: 2 }, { progress: 2, total: 2 }])
})

test('a cancelled call to a modern server reaches its handler; the server stays connected', async (t) => {
  const { server, h } = await setup(t)
  const controller = new AbortController()
  const pending = h.call('mcp__modern__hang', {}, { signal: controller.signal })
  await until(() => server.count('tools/call', 'hang') === 1, 'the call to reach the server')
  controller.abort(new Error('the caller went away'))
  const outcome = await pending
  assert.notEqual(outcome.status, 'ok')
  await until(() => server.cancelled.some((c) => c.tool === 'hang'), 'the handler\'s signal to abort')
  assert.equal(h.manager.states()[0].state, 'connected')
  assert.equal((await h.call('mcp__modern__add', { a: 1, b: 1 })).content, '2')
})

test('the caller\'s traceparent and the revision\'s envelope share tools/call _meta (with a progress token too)', async (t) => {
  const { server, h } = await setup(t)
  const connection = h.manager.connection('modern')!
  await connection.callTool('steps', {}, { traceHeaders: { traceparent: TRACEPARENT }, onProgress: () => {} })
  const meta = server.received.find((m) => m.method === 'tools/call')!.params?._meta as Record<string, unknown>
  assert.equal(meta.traceparent, TRACEPARENT)
  assert.equal(meta[PROTOCOL_META], '2026-07-28')
  assert.ok(meta['io.modelcontextprotocol/clientInfo'], 'the envelope is whole')
  assert.notEqual(meta.progressToken, undefined)
})

test('a tool added while the gateway runs arrives on the subscriptions/listen stream', async (t) => {
  const { server, h } = await setup(t)
  assert.equal(server.count('subscriptions/listen'), 1)
  await until(() => server.openStreams === 1, 'the listen stream to be open')
  const lists = server.count('tools/list')
  server.addTool('late', { description: 'Added later', run: () => ({ content: [{ type: 'text', text: 'late' }] }) })
  await until(() => h.registry.getEntry('mcp__modern__late') !== undefined, 'the new tool to register')
  assert.equal(server.count('tools/list'), lists + 1, 'one refresh')
  assert.equal((await h.call('mcp__modern__late', {})).content, 'late')
})

test('a pinned 2025 revision the server does not speak fails to connect, saying what it supports', async (t) => {
  const { server, h } = await setup(t, { protocol: '2025-11-25' }, { tuning: { failureThreshold: 1 } })
  const [status] = h.manager.states()
  assert.notEqual(status.state, 'connected')
  assert.equal(status.protocolVersion, null)
  assert.equal(status.protocolEra, null)
  assert.equal(status.lastError, 'the server does not speak the pinned MCP 2025-11-25 (mcpServers.modern.protocol); it supports 2026-07-28')
  assert.equal(server.count('server/discover'), 0, 'a 2025 pin never probes')
})

test('a reconnection after the server restarts adopts the kept verdict: no second server/discover', async (t) => {
  const { server, h } = await setup(t, {}, { tuning: { failureThreshold: 1000 } })
  const connection = h.manager.connection('modern')!
  assert.equal(server.count('server/discover'), 1)
  await until(() => server.openStreams === 1, 'the listen stream to be open')
  await server.crash()
  await waitForState(connection, 'reconnecting')
  const before = server.received.length
  await server.restart()
  await waitForState(connection, 'connected')
  const after = server.received.slice(before).map((m) => m.method)
  assert.ok(!after.includes('server/discover'), `no probe after the restart: ${after.join(', ')}`)
  assert.ok(after.includes('subscriptions/listen') && after.includes('tools/list'))
  assert.equal(h.manager.states()[0].protocolVersion, '2026-07-28')
  assert.equal((await h.call('mcp__modern__add', { a: 2, b: 2 })).content, '4')
})

test('a listen stream cut while the server is up is opened again, without a reconnection; a change made meanwhile is picked up', async (t) => {
  const { server, h } = await setup(t, {}, { tuning: { listenRetryBaseMs: 50 } })
  const connection = h.manager.connection('modern')!
  await until(() => server.openStreams === 1, 'the listen stream to be open')
  const states: string[] = []
  connection.on('state', (state) => states.push(state))
  server.cutStreams()
  await until(() => server.openStreams === 0, 'the stream to end')
  // Told to no one: no stream is open.
  server.addTool('meanwhile', { run: () => ({ content: [{ type: 'text', text: 'meanwhile' }] }) })
  await until(() => h.registry.getEntry('mcp__modern__meanwhile') !== undefined, 'the tool added during the gap to register')
  assert.equal(server.count('subscriptions/listen'), 2)
  assert.equal(server.openStreams, 1)
  assert.deepEqual(states, [], 'the connection never left connected')
  assert.equal(connection.refusedAnswers, 0, 'a listen stream ending is no refused answer')
  assert.equal(connection.lastError, undefined)
})

test('a modern server that stops answering is found by server/discover (the revision has no ping) and reconnected', async (t) => {
  const { server, h } = await setup(t, { connectTimeoutMs: 300 }, { tuning: { pingIntervalMs: 100, pingTimeoutMs: 200, failureThreshold: 1000 } })
  const connection = h.manager.connection('modern')!
  await until(() => server.count('server/discover') >= 2, 'a health probe')
  server.frozen = true
  await waitForState(connection, 'reconnecting')
  assert.match(connection.lastError!, /no reply to server\/discover within 200 ms after health check/)
  server.frozen = false
  await waitForState(connection, 'connected')
  assert.equal(server.count('ping'), 0)
  assert.equal((await h.call('mcp__modern__add', { a: 1, b: 2 })).content, '3')
})

test('a reconfigured server is negotiated anew (its kept verdict is the old connection\'s); an unchanged one is not', async (t) => {
  const { server, h } = await setup(t)
  assert.equal(server.count('server/discover'), 1)
  const config = { url: server.url } as McpServerConfig
  await h.manager.reconfigure({ modern: config }, async () => {})
  assert.equal(server.count('server/discover'), 1, 'unchanged: the same connection')
  const done = await h.manager.reconfigure({ modern: { ...config, protocol: '2026-07-28' } }, async () => {})
  assert.deepEqual(done.reconnected, ['modern'])
  assert.equal(server.count('server/discover'), 2, 'the new connection asked the server')
  assert.equal(h.manager.states()[0].protocolVersion, '2026-07-28')
})

test('GET /tools shows the revision and era each server is spoken to in, null for one that is down', async (t) => {
  const modern = new ModernMcpHttpServer(tools())
  const legacy = new TestMcpHttpServer({ ping_me: { run: () => ({ content: [] }) } })
  await Promise.all([modern.start(), legacy.start()])
  const dir = await mkdtemp(join(tmpdir(), 'gw-modern-tools-'))
  t.after(async () => {
    await Promise.all([modern.close(), legacy.close()])
    await rm(dir, { recursive: true, force: true })
  })
  const config = join(dir, 'gateway.json')
  await writeFile(config, JSON.stringify({
    mcpServers: {
      modern: { url: modern.url },
      legacy: { url: legacy.url },
      down: { url: 'http://127.0.0.1:1/mcp', connectTimeoutMs: 500 }
    }
  }))
  const { app } = await buildTestApp(t, { GATEWAY_CONFIG: config })
  await app.gateway.mcp.ready()
  const report = (await app.inject('/tools')).json() as { mcpServers: Array<{ server: string, state: string, protocolVersion: string | null, protocolEra: string | null }> }
  const seen = Object.fromEntries(report.mcpServers.map(({ server, state, protocolVersion, protocolEra }) => [server, { state, protocolVersion, protocolEra }]))
  assert.deepEqual(seen.modern, { state: 'connected', protocolVersion: '2026-07-28', protocolEra: 'modern' })
  assert.deepEqual(seen.legacy, { state: 'connected', protocolVersion: '2025-11-25', protocolEra: 'legacy' })
  assert.equal(seen.down.protocolVersion, null)
  assert.equal(seen.down.protocolEra, null)
})
