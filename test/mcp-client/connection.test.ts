import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import type { McpServerConfig } from '../../src/config/schema.ts'
import { McpUnavailableError } from '../../src/shared/errors.ts'
import { McpConnection } from '../../src/mcp-client/connection.ts'
import { captureLogger } from '../helpers/logger.ts'
import { ManualClock } from './helpers/clock.ts'
import { createMcpHarness } from './helpers/harness.ts'
import { TestMcpHttpServer } from './helpers/http-server.ts'
import { childProcesses } from './helpers/processes.ts'
import { writeTinyServer } from './helpers/tiny-server.ts'
import { until, waitForState } from './helpers/wait.ts'

let tiny: { dir: string, script: string }

before(async () => { tiny = await writeTinyServer() })
after(async () => { await rm(tiny.dir, { recursive: true, force: true }) })

function tinyConfig (extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { command: process.execPath, args: [tiny.script], ...extra } as McpServerConfig
}

/** A URL where nothing listens (a server that was there and is gone). */
async function deadUrl (): Promise<{ server: TestMcpHttpServer, url: string }> {
  const server = new TestMcpHttpServer({ echo: { run: () => ({ content: [{ type: 'text', text: 'hi' }] }) } })
  await server.start()
  await server.crash()
  return { server, url: server.url }
}

test('a stdio server killed mid-call 20 times recovers every time, and no child is ever leaked', async (t) => {
  const h = await createMcpHarness({ tiny: tinyConfig() }, { tuning: { backoffBaseMs: 10, stableMs: 0, pingIntervalMs: 0 } })
  t.after(() => h.manager.stop())
  h.manager.start()
  await h.manager.ready()
  const connection = h.manager.connection('tiny')!
  const seen = new Set<number>()
  for (let i = 0; i < 20; i++) {
    await waitForState(connection, 'connected')
    const pid = connection.pid!
    assert.ok(!seen.has(pid), 'a fresh child each time')
    seen.add(pid)
    const call = h.call('mcp__tiny__slow', { ms: 60_000, tag: `round-${i}` })
    await until(() => h.log.text().includes(`slow started round-${i}`), `call ${i} to reach the server`)
    process.kill(pid, 'SIGKILL')
    const outcome = await call
    assert.equal(outcome.status, 'error', `round ${i}: ${outcome.content}`)
    assert.match(outcome.content, /went away|exited|closed/)
    await waitForState(connection, 'connected')
    const check = await h.call('mcp__tiny__pid', {})
    assert.equal(check.status, 'ok', `round ${i}: ${check.content}`)
    assert.equal(Number(check.content), connection.pid)
    const children = childProcesses()
    assert.deepEqual(children.map((c) => c.pid), [connection.pid], `round ${i}: only the current child runs (${JSON.stringify(children)})`)
  }
  assert.equal(seen.size, 20)
  await h.manager.stop()
  assert.deepEqual(childProcesses(), [], 'after stop() no child at all, not even a zombie')
})

test('a wedged stdio server is found by a ping, killed (SIGKILL when it ignores SIGTERM) and reaped before its replacement starts', async (t) => {
  const h = await createMcpHarness({ wedged: tinyConfig({ env: { IGNORE_SIGTERM: '1' }, timeoutMs: 200 }) }, {
    tuning: { pingIntervalMs: 0, pingTimeoutMs: 200, killGraceMs: 500, backoffBaseMs: 10, stableMs: 0 }
  })
  t.after(() => h.manager.stop())
  h.manager.start()
  await h.manager.ready()
  const connection = h.manager.connection('wedged')!
  const old = connection.pid!
  const reconnecting = waitForState(connection, 'reconnecting')
  const outcome = await h.call('mcp__wedged__block', {})
  assert.equal(outcome.status, 'timeout')
  await reconnecting
  assert.match(connection.lastError!, /stopped answering/)
  assert.equal((await h.call('mcp__wedged__pid', {})).status, 'unavailable')
  await waitForState(connection, 'connected')
  assert.ok(!childProcesses().some((c) => c.pid === old), 'the wedged child was reaped before the new one connected')
  assert.ok(h.log.lines().some((l) => l.msg === 'MCP server ignored SIGTERM; sending SIGKILL' && l.pid === old))
  assert.equal((await h.call('mcp__wedged__pid', {})).content, String(connection.pid))
})

test('back-off doubles from 500 ms, is jittered by ±20 % and capped at 30 s', async (t) => {
  const { url } = await deadUrl()
  const clock = new ManualClock()
  const connection = new McpConnection({ server: 'down', config: { url } as McpServerConfig, logger: captureLogger('silent').logger, clock, tuning: { failureThreshold: 100, pingIntervalMs: 0 } })
  t.after(() => connection.close())
  clock.randomValue = 0 // the low end of the jitter: × 0.8
  await connection.start()
  const expected = [400, 800, 1600, 3200, 6400, 12_800, 24_000, 24_000]
  for (let i = 1; i < expected.length; i++) {
    await until(() => clock.delays.length === i, `failure ${i} to schedule a retry`)
    clock.advance(clock.delays[i - 1])
  }
  await until(() => clock.delays.length === expected.length, 'the last retry')
  assert.deepEqual(clock.delays, expected)
  assert.equal(connection.state, 'reconnecting')

  clock.randomValue = 0.75 // × 1.1: the jitter applies after the 30 s cap
  clock.advance(clock.delays.at(-1)!)
  await until(() => clock.delays.length === expected.length + 1, 'one more retry')
  assert.equal(clock.delays.at(-1), 33_000)
})

test('circuit breaker: 3 consecutive failures open it for 60 s, then one half-open probe', async (t) => {
  const { server, url } = await deadUrl()
  const clock = new ManualClock()
  const h = await createMcpHarness({ remote: { url } as McpServerConfig }, { clock, tuning: { pingIntervalMs: 0 } })
  t.after(async () => {
    await h.manager.stop()
    await server.close()
  })
  h.manager.start()
  await h.manager.ready()
  const connection = h.manager.connection('remote')!
  assert.equal(connection.state, 'reconnecting')
  assert.match(connection.lastError!, /fetch failed|ECONNREFUSED/)
  assert.deepEqual(clock.delays, [500])

  clock.advance(499)
  assert.equal(clock.delays.length, 1, 'nothing happens before the delay')
  clock.advance(1)
  await until(() => clock.delays.length === 2, 'the second failure')
  assert.equal(clock.delays[1], 1000)
  const opened = waitForState(connection, 'circuit_open')
  clock.advance(1000)
  await opened
  assert.equal(connection.consecutiveFailures, 3)
  assert.equal(clock.delays[2], 60_000)
  assert.equal(h.manager.states()[0].state, 'circuit_open')

  // While open: no attempt at all, and calls are refused at once with the reason.
  const attempts = h.log.lines().filter((l) => l.msg === 'MCP server connection attempt failed').length
  clock.advance(59_999)
  assert.equal(connection.state, 'circuit_open')
  assert.equal(h.log.lines().filter((l) => l.msg === 'MCP server connection attempt failed').length, attempts)
  assert.match(connection.describe(), /^MCP server "remote" is circuit open after 3 consecutive failures \(next attempt in 1 s\): /)

  // The probe fails: open again for another 60 s, with one more failure counted.
  const probing = waitForState(connection, 'reconnecting')
  clock.advance(1)
  await probing
  await waitForState(connection, 'circuit_open')
  assert.equal(connection.consecutiveFailures, 4)
  assert.equal(clock.delays.at(-1), 60_000)

  // The server is back: the next probe connects.
  await server.restart()
  clock.advance(60_000)
  await waitForState(connection, 'connected')
  assert.equal((await h.call('mcp__remote__echo', {})).content, 'hi')
})

test('a server that dies right after connecting, again and again, also opens the circuit', async (t) => {
  const clock = new ManualClock()
  const h = await createMcpHarness({ flaky: tinyConfig({ env: { EXIT_AFTER_MS: '300' } }) }, { clock, tuning: { pingIntervalMs: 0 } })
  t.after(() => h.manager.stop())
  h.manager.start()
  await h.manager.ready()
  const connection = h.manager.connection('flaky')!
  for (let i = 1; i <= 2; i++) {
    await waitForState(connection, 'reconnecting')
    assert.match(connection.lastError!, /process exited/)
    assert.equal(connection.consecutiveFailures, i)
    const back = waitForState(connection, 'connected')
    clock.advance(clock.delays.at(-1)!)
    await back
  }
  await waitForState(connection, 'circuit_open')
  assert.equal(connection.consecutiveFailures, 3)
})

test('calls fail fast while reconnecting, with the reason', async (t) => {
  const { server, url } = await deadUrl()
  const h = await createMcpHarness({ gone: { url } as McpServerConfig }, { clock: new ManualClock() })
  t.after(async () => {
    await h.manager.stop()
    await server.close()
  })
  h.manager.start()
  await h.manager.ready()
  const connection = h.manager.connection('gone')!
  await assert.rejects(connection.callTool('echo', {}), (err) => {
    assert.ok(err instanceof McpUnavailableError)
    assert.match(err.message, /^MCP server "gone" is reconnecting: .*fetch failed/)
    return true
  })
})

test('close() kills a child that ignores SIGTERM with SIGKILL after the grace, and reaps it', async () => {
  const log = captureLogger('debug')
  const connection = new McpConnection({
    server: 'stubborn',
    config: tinyConfig({ env: { IGNORE_SIGTERM: '1' } }),
    logger: log.logger,
    tuning: { killGraceMs: 300, pingIntervalMs: 0 }
  })
  await connection.start()
  assert.equal(connection.state, 'connected')
  const pid = connection.pid!
  await connection.close()
  assert.equal(connection.state, 'closed')
  assert.ok(log.lines().some((l) => l.msg === 'MCP server ignored SIGTERM; sending SIGKILL'))
  assert.ok(!childProcesses().some((c) => c.pid === pid))
})

test('a command that cannot start is a failed attempt with the reason, not a crash', async (t) => {
  const h = await createMcpHarness({ missing: { command: '/nonexistent/mcp-server' } as McpServerConfig }, { clock: new ManualClock() })
  t.after(() => h.manager.stop())
  h.manager.start()
  await h.manager.ready()
  const [status] = h.manager.states()
  assert.equal(status.state, 'reconnecting')
  assert.match(status.lastError!, /ENOENT/)
  assert.deepEqual(childProcesses(), [])
})

test('cwd is honoured', async (t) => {
  const connection = new McpConnection({ server: 'here', config: tinyConfig({ cwd: tiny.dir }), logger: captureLogger('silent').logger, tuning: { pingIntervalMs: 0 } })
  t.after(() => connection.close())
  await connection.start()
  assert.equal((await connection.callTool('cwd', {})).content, tiny.dir)
})

test('a missing cwd is reported as such, not as the spawn ENOENT that reads like a missing command', async (t) => {
  const missing = `${tiny.dir}/no-such-folder`
  const h = await createMcpHarness({ lost: tinyConfig({ cwd: missing }), file: tinyConfig({ cwd: tiny.script }) }, { clock: new ManualClock() })
  t.after(() => h.manager.stop())
  h.manager.start()
  await h.manager.ready()
  const states = Object.fromEntries(h.manager.states().map((s) => [s.server, s]))
  assert.equal(states.lost.state, 'reconnecting')
  assert.equal(states.lost.lastError, `cannot start the server: its cwd "${missing}" does not exist`)
  assert.equal(states.file.lastError, `cannot start the server: its cwd "${tiny.script}" is not a folder`)
  assert.deepEqual(childProcesses(), [])
})

test('child stderr is logged at debug line by line, long lines cut, at most N lines per window', async () => {
  const log = captureLogger('debug')
  const connection = new McpConnection({
    server: 'chatty',
    config: tinyConfig(),
    logger: log.logger,
    clock: new ManualClock(), // time stands still: everything below falls in one window
    tuning: { pingIntervalMs: 0, stderrLinesPerWindow: 5, stderrWindowMs: 1000 }
  })
  await connection.start()
  await connection.callTool('say', { text: 'x'.repeat(5000) })
  await connection.callTool('say', { text: 'spam', times: 50 })
  // Closing ends the child's stderr, which reports what the cap swallowed; the pipe keeps the order.
  await connection.close()
  const summary = (): Record<string, unknown> | undefined => log.lines().find((l) => l.msg === 'MCP server stderr lines not logged (rate cap)')
  await until(() => summary() !== undefined, 'the end of stderr')
  const lines = log.lines().filter((l) => l.msg === 'MCP server stderr')
  assert.ok(lines.every((l) => l.level === 20 && typeof l.stderr === 'string'))
  assert.match(String(lines[0].stderr), /^tiny server up/)
  assert.equal(String(lines[1].stderr).length, 2001, 'a long line is cut at 2000 characters')
  assert.deepEqual(lines.slice(2).map((l) => l.stderr), ['spam 0', 'spam 1', 'spam 2'])
  assert.equal(summary()?.dropped, 47)
})
