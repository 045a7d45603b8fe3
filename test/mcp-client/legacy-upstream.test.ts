// Upstreams that speak only the 2025 revisions, as a gateway meets them: server-everything (a server
// nobody here wrote) over stdio and over its Streamable HTTP mode. With protocol auto the probe finds
// them legacy and they connect with initialize, once (the verdict is kept: a reconnection neither
// probes nor spawns a second process); a pinned 2025 revision is offered exactly; a pinned
// 2026-07-28 fails with an error naming the field; progress and the caller's traceparent go through.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import type { McpServerConfig } from '../../src/config/schema.ts'
import type { ToolProgress } from '../../src/registry/types.ts'
import { freePort } from '../helpers/free-port.ts'
import { createMcpHarness, EVERYTHING_SERVER, type McpHarness } from './helpers/harness.ts'
import { TestMcpHttpServer } from './helpers/http-server.ts'
import { writeLoggedEverything, type LoggedStdioServer } from './helpers/logged-stdio-servers.ts'
import { waitForState } from './helpers/wait.ts'

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'

async function harness (t: TestContext, config: McpServerConfig): Promise<McpHarness> {
  const h = await createMcpHarness({ everything: config }, { tuning: { backoffBaseMs: 20, pingIntervalMs: 0, failureThreshold: 1000 } })
  t.after(() => h.manager.stop())
  h.manager.start()
  await h.manager.ready()
  return h
}

async function stdio (t: TestContext, extra: Partial<McpServerConfig> = {}): Promise<{ server: LoggedStdioServer, h: McpHarness }> {
  const server = await writeLoggedEverything()
  const h = await harness(t, { command: process.execPath, args: [server.script], env: { LOG_FILE: server.logFile }, ...extra } as McpServerConfig)
  return { server, h }
}

async function count (server: LoggedStdioServer, what: string): Promise<number> {
  return (await server.log()).filter((entry) => (what === 'start' ? entry.event === 'start' : entry.method === what)).length
}

/** server-everything in its Streamable HTTP mode, on a free loopback port; stopped after the test. */
async function everythingOverHttp (t: TestContext): Promise<string> {
  const port = await freePort()
  const child = spawn(process.execPath, [EVERYTHING_SERVER, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] })
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      await once(child, 'exit')
    }
  })
  let stderr = ''
  await new Promise<void>((resolve, reject) => {
    const bound = setTimeout(() => reject(new Error(`server-everything did not listen within 10 s: ${stderr}`)), 10_000)
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      if (stderr.includes('listening on port')) {
        clearTimeout(bound)
        resolve()
      }
    })
  })
  return `http://127.0.0.1:${port}/mcp`
}

test('protocol auto, over stdio: server-everything is found legacy and connects in 2025-11-25; listed, called, /tools says so', async (t) => {
  const { server, h } = await stdio(t)
  const [status] = h.manager.states()
  assert.equal(status.state, 'connected', status.lastError ?? '')
  assert.equal(status.protocolVersion, '2025-11-25')
  assert.equal(status.protocolEra, 'legacy')
  assert.ok(h.registry.getEntry('mcp__everything__echo'))
  assert.equal((await h.call('mcp__everything__echo', { message: 'hi' })).content, 'Echo: hi')
  assert.equal(await count(server, 'server/discover'), 1, 'one probe, on the short-lived second process')
  assert.equal(await count(server, 'start'), 2)
  assert.equal(await count(server, 'initialize'), 1)
})

test('over stdio, a legacy server\'s reconnection adopts the kept verdict: no probe, no second process', async (t) => {
  const { server, h } = await stdio(t)
  const connection = h.manager.connection('everything')!
  const pid = connection.pid!
  process.kill(pid, 'SIGKILL')
  await waitForState(connection, 'reconnecting')
  await waitForState(connection, 'connected')
  assert.notEqual(connection.pid, pid)
  assert.equal(await count(server, 'start'), 3, 'the server itself only')
  assert.equal(await count(server, 'server/discover'), 1)
  assert.equal(await count(server, 'initialize'), 2)
  assert.equal(h.manager.states()[0].protocolVersion, '2025-11-25')
})

test('a pinned 2025-06-18 is the revision offered and spoken, without a probe', async (t) => {
  const { server, h } = await stdio(t, { protocol: '2025-06-18' })
  assert.equal(h.manager.states()[0].protocolVersion, '2025-06-18')
  const initialize = (await server.log()).find((entry) => entry.method === 'initialize')!
  assert.equal(initialize.params?.protocolVersion, '2025-06-18')
  assert.equal(await count(server, 'server/discover'), 0)
  assert.equal(await count(server, 'start'), 1)
})

test('a pinned 2026-07-28 against a 2025-only server fails to connect, naming the field', async (t) => {
  const { h } = await stdio(t, { protocol: '2026-07-28' })
  const [status] = h.manager.states()
  assert.notEqual(status.state, 'connected')
  assert.equal(status.protocolVersion, null)
  assert.match(status.lastError!, /^the server does not offer the pinned MCP 2026-07-28 \(mcpServers\.everything\.protocol; auto speaks whichever revision it offers\)/)
})

test('progress of a legacy server reaches the caller who listens', async (t) => {
  const { h } = await stdio(t)
  const reports: ToolProgress[] = []
  const outcome = await h.call('mcp__everything__trigger_long_running_operation', { duration: 0.2, steps: 2 }, { onProgress: (update) => { reports.push(update) } })
  assert.equal(outcome.status, 'ok', outcome.content)
  assert.deepEqual(reports.map(({ progress, total }) => ({ progress, total })), [{ progress: 1, total: 2 }, { progress: 2, total: 2 }])
})

test('protocol auto, over Streamable HTTP: server-everything connects in 2025-11-25 with a session; listed, called', async (t) => {
  const url = await everythingOverHttp(t)
  const h = await harness(t, { url } as McpServerConfig)
  const [status] = h.manager.states()
  assert.equal(status.state, 'connected', status.lastError ?? '')
  assert.equal(status.protocolVersion, '2025-11-25')
  assert.equal(status.protocolEra, 'legacy')
  assert.ok(h.manager.connection('everything')!.sessionId, 'a 2025 session')
  assert.equal((await h.call('mcp__everything__echo', { message: 'over http' })).content, 'Echo: over http')
})

test('over Streamable HTTP: a pinned 2025-06-18 is spoken; a pinned 2026-07-28 fails, naming the field', async (t) => {
  const url = await everythingOverHttp(t)
  const pinned = await harness(t, { url, protocol: '2025-06-18' } as McpServerConfig)
  assert.equal(pinned.manager.states()[0].protocolVersion, '2025-06-18')
  assert.equal((await pinned.call('mcp__everything__echo', { message: 'old' })).content, 'Echo: old')
  const modern = await harness(t, { url, protocol: '2026-07-28' } as McpServerConfig)
  assert.match(modern.manager.states()[0].lastError!, /does not offer the pinned MCP 2026-07-28 \(mcpServers\.everything\.protocol/)
})

test('in 2025 too, the caller\'s traceparent and the progress token share tools/call _meta', async (t) => {
  const server = new TestMcpHttpServer({
    steps: { run: async (_args, { progress }) => { await progress(1, 1); return { content: [{ type: 'text', text: 'done' }] } } }
  })
  await server.start()
  t.after(() => server.close())
  const h = await harness(t, { url: server.url } as McpServerConfig)
  assert.equal(h.manager.states()[0].protocolVersion, '2025-11-25')
  const reports: ToolProgress[] = []
  await h.manager.connection('everything')!.callTool('steps', {}, { traceHeaders: { traceparent: TRACEPARENT }, onProgress: (update) => { reports.push(update) } })
  const meta = server.received.find((m) => m.method === 'tools/call')!.params?._meta as Record<string, unknown>
  assert.equal(meta.traceparent, TRACEPARENT)
  assert.notEqual(meta.progressToken, undefined)
  assert.equal(reports.length, 1)
})
