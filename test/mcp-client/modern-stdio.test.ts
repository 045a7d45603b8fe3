// A stdio upstream that speaks only MCP 2026-07-28 (the SDK's serveStdio, 2025 openings refused):
// connected with protocol auto (the SDK probes on a short-lived second process, once) and pinned,
// listed, called, progress and cancellation through, a tool it adds arrives on the listen stream,
// and a reconnection after its process dies adopts the kept verdict: no probe, no second process.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type { McpServerConfig } from '../../src/config/schema.ts'
import type { ToolProgress } from '../../src/registry/types.ts'
import { createMcpHarness, type McpHarness } from './helpers/harness.ts'
import { writeModernStdioServer, type LoggedStdioServer, type StdioLogEntry } from './helpers/logged-stdio-servers.ts'
import { until, waitForState } from './helpers/wait.ts'
import { toolNames } from '../helpers/tools.ts'

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'

async function setup (t: TestContext, config: Partial<McpServerConfig> = {}): Promise<{ server: LoggedStdioServer, h: McpHarness }> {
  const server = await writeModernStdioServer()
  const h = await createMcpHarness({
    local: { command: process.execPath, args: [server.script], env: { LOG_FILE: server.logFile }, ...config } as McpServerConfig
  }, { tuning: { backoffBaseMs: 20, pingIntervalMs: 0, failureThreshold: 1000 }, debounceMs: 20, refreshIntervalMs: 50 })
  t.after(() => h.manager.stop())
  h.manager.start()
  await h.manager.ready()
  return { server, h }
}

/** Polls the server's log (a file its processes append to) until `match` finds a line. */
async function logged (server: LoggedStdioServer, match: (entry: StdioLogEntry) => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!(await server.log()).some(match)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

async function starts (server: LoggedStdioServer): Promise<number> {
  return (await server.log()).filter((entry) => entry.event === 'start').length
}

async function requests (server: LoggedStdioServer, method: string): Promise<number> {
  return (await server.log()).filter((entry) => entry.method === method).length
}

for (const protocol of ['auto', '2026-07-28'] as const) {
  test(`protocol ${protocol}: a modern-only stdio server connects in 2026-07-28 after one probe on a second process, and serves its tools`, async (t) => {
    const { server, h } = await setup(t, { protocol })
    const [status] = h.manager.states()
    assert.equal(status.state, 'connected', status.lastError ?? '')
    assert.equal(status.protocolVersion, '2026-07-28')
    assert.equal(status.protocolEra, 'modern')
    assert.deepEqual(toolNames(h.registry), ['mcp__local__echo', 'mcp__local__grow', 'mcp__local__hang', 'mcp__local__steps'])
    assert.equal(await starts(server), 2, 'the probe process and the server')
    assert.equal(await requests(server, 'server/discover'), 1)
    assert.equal(await requests(server, 'initialize'), 0)
    assert.equal((await h.call('mcp__local__echo', { text: 'hi' })).content, 'hi')
  })
}

test('over stdio: progress reaches the caller, a cancellation the handler, and traceparent rides in _meta beside the envelope', async (t) => {
  const { server, h } = await setup(t)
  const reports: ToolProgress[] = []
  const stepped = await h.call('mcp__local__steps', {}, { onProgress: (update) => { reports.push(update) } })
  assert.equal(stepped.content, 'stepped')
  assert.deepEqual(reports.map(({ progress, total }) => ({ progress, total })), [{ progress: 1, total: 2 }, { progress: 2, total: 2 }])

  const controller = new AbortController()
  const hung = h.call('mcp__local__hang', {}, { signal: controller.signal })
  await logged(server, (entry) => entry.params?.name === 'hang', 'the call to reach the server')
  controller.abort(new Error('enough'))
  assert.notEqual((await hung).status, 'ok')
  await logged(server, (entry) => entry.event === 'cancelled', 'the handler to see its signal abort')
  assert.ok((await server.log()).some((entry) => entry.method === 'notifications/cancelled'), 'told with notifications/cancelled on the pipe')

  await h.manager.connection('local')!.callTool('echo', { text: 'traced' }, { traceHeaders: { traceparent: TRACEPARENT } })
  const call = (await server.log()).findLast((entry) => entry.method === 'tools/call')!
  assert.equal(call.params?._meta?.traceparent, TRACEPARENT)
  assert.equal(call.params?._meta?.['io.modelcontextprotocol/protocolVersion'], '2026-07-28')
})

test('over stdio: a tool the server adds arrives on the subscriptions/listen stream', async (t) => {
  const { server, h } = await setup(t)
  assert.equal(await requests(server, 'subscriptions/listen'), 1)
  assert.equal((await h.call('mcp__local__grow', {})).content, 'grown')
  await until(() => h.registry.getEntry('mcp__local__late') !== undefined, 'the new tool to register')
  assert.equal((await h.call('mcp__local__late', {})).content, 'late')
})

test('over stdio: after the server process dies, the reconnection adopts the kept verdict: no probe, no second process', async (t) => {
  const { server, h } = await setup(t)
  const connection = h.manager.connection('local')!
  const pid = connection.pid!
  assert.equal(await starts(server), 2)
  process.kill(pid, 'SIGKILL')
  await waitForState(connection, 'reconnecting')
  await waitForState(connection, 'connected')
  assert.notEqual(connection.pid, pid)
  assert.equal(await starts(server), 3, 'one more process: the server itself, no probe')
  assert.equal(await requests(server, 'server/discover'), 1, 'the first connect\'s probe only')
  assert.equal(await requests(server, 'subscriptions/listen'), 2, 'the stream opened again on the new process')
  assert.equal(h.manager.states()[0].protocolVersion, '2026-07-28')
  assert.equal((await h.call('mcp__local__echo', { text: 'again' })).content, 'again')
})
