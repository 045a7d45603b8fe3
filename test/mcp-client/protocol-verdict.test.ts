// The verdict kept per server for its reconnects, alone (what is kept, for how long, what disproves
// it) and against real servers swapped on one port: a server upgraded to 2026-07-28 only, and one
// that went back to 2025, are each negotiated again at once, without a failure counted.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type { DiscoverResult } from '@modelcontextprotocol/client'
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client'
import type { McpServerConfig } from '../../src/config/schema.ts'
import { isEraEvidence } from '../../src/mcp-client/protocol.ts'
import { LEGACY_VERDICT_MAX_AGE_MS, ProtocolVerdict } from '../../src/mcp-client/protocol-verdict.ts'
import { createMcpHarness, type McpHarness } from './helpers/harness.ts'
import { TestMcpHttpServer, type TestTool } from './helpers/http-server.ts'
import { ModernMcpHttpServer } from './helpers/modern-http-server.ts'
import { waitForState } from './helpers/wait.ts'

const DISCOVER: DiscoverResult = { supportedVersions: ['2026-07-28'], capabilities: { tools: { listChanged: true } }, ttlMs: 0, cacheScope: 'private' } as DiscoverResult

function client (version: string | undefined, discover?: DiscoverResult): { getNegotiatedProtocolVersion: () => string | undefined, getDiscoverResult: () => DiscoverResult | undefined } {
  return { getNegotiatedProtocolVersion: () => version, getDiscoverResult: () => discover }
}

test('a modern verdict carries the server/discover answer; a legacy one is kept only in auto', () => {
  const auto = new ProtocolVerdict('auto', 'http')
  assert.equal(auto.prior(0), undefined, 'nothing before the first connect')
  auto.learn(client('2026-07-28', DISCOVER), 0)
  assert.deepEqual(auto.prior(1), { kind: 'modern', discover: DISCOVER })

  const pinnedModern = new ProtocolVerdict('2026-07-28', 'stdio')
  pinnedModern.learn(client('2026-07-28', DISCOVER), 0)
  assert.equal(pinnedModern.prior(1)?.kind, 'modern', 'a pin is probed once too (over stdio, on a second process)')

  const pinnedLegacy = new ProtocolVerdict('2025-06-18', 'http')
  pinnedLegacy.learn(client('2025-06-18'), 0)
  assert.equal(pinnedLegacy.prior(1), undefined, 'a 2025 pin never probes: nothing to keep')

  const legacy = new ProtocolVerdict('auto', 'stdio')
  legacy.learn(client('2025-11-25'), 0)
  assert.deepEqual(legacy.prior(1), { kind: 'legacy' })
})

test('a legacy verdict of an HTTP server is trusted for a day, then the server is probed again; a stdio one is kept', () => {
  const http = new ProtocolVerdict('auto', 'http')
  http.learn(client('2025-11-25'), 0)
  // Reconnecting does not renew it: it dates from when it was found.
  http.learn(client('2025-11-25'), LEGACY_VERDICT_MAX_AGE_MS - 10)
  assert.deepEqual(http.prior(LEGACY_VERDICT_MAX_AGE_MS - 1), { kind: 'legacy' })
  assert.equal(http.prior(LEGACY_VERDICT_MAX_AGE_MS), undefined)
  assert.equal(http.held, undefined)

  const stdio = new ProtocolVerdict('auto', 'stdio')
  stdio.learn(client('2025-11-25'), 0)
  assert.deepEqual(stdio.prior(10 * LEGACY_VERDICT_MAX_AGE_MS), { kind: 'legacy' })
})

test('what disproves a kept verdict: the server answered, but not in that revision; an outage does not', () => {
  const unsupported = new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'Error POSTing to endpoint', {
    status: 400, statusText: 'Bad Request', text: '{"jsonrpc":"2.0","error":{"code":-32022,"message":"Unsupported protocol version: 2025-11-25","data":{"supported":["2026-07-28"]}},"id":0}'
  })
  assert.equal(isEraEvidence(unsupported), true)
  assert.equal(isEraEvidence(new SdkError(SdkErrorCode.InvalidResult, 'missing required resultType')), true)
  assert.equal(isEraEvidence(new SdkError(SdkErrorCode.EraNegotiationFailed, 'no overlap')), true)
  assert.equal(isEraEvidence(new ProtocolError(-32601, 'Method not found')), true)
  assert.equal(isEraEvidence(new Error('Server\'s protocol version is not supported: 2025-03-26')), true)

  assert.equal(isEraEvidence(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed')), false, 'a crash loop must not cost a probe per attempt')
  assert.equal(isEraEvidence(new SdkError(SdkErrorCode.RequestTimeout, 'timed out')), false)
  assert.equal(isEraEvidence(new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) })), false)
  assert.equal(isEraEvidence(new SdkHttpError(SdkErrorCode.ClientHttpAuthentication, 'Unauthorized', { status: 401, statusText: 'Unauthorized', text: '' })), false)
  assert.equal(isEraEvidence(new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'Bad Gateway', { status: 502, statusText: 'Bad Gateway', text: '' })), false)

  const verdict = new ProtocolVerdict('auto', 'http')
  verdict.learn(client('2026-07-28', DISCOVER), 0)
  assert.equal(verdict.disproved(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed')), false)
  assert.equal(verdict.held, 'modern')
  assert.equal(verdict.disproved(unsupported), true)
  assert.equal(verdict.held, undefined)
})

const ECHO: Record<string, TestTool> = { echo: { run: () => ({ content: [{ type: 'text', text: 'echo' }] }) } }

async function harness (t: TestContext, url: string): Promise<McpHarness> {
  const h = await createMcpHarness({ swapped: { url } as McpServerConfig }, { tuning: { backoffBaseMs: 20, pingIntervalMs: 0, failureThreshold: 2 } })
  t.after(() => h.manager.stop())
  h.manager.start()
  return h
}

test('a server upgraded to 2026-07-28 only, on the same address: the kept legacy verdict fails and the server is negotiated again at once', async (t) => {
  const legacy = new TestMcpHttpServer(ECHO)
  await legacy.start()
  const port = Number(new URL(legacy.url).port)
  const modern = new ModernMcpHttpServer(ECHO, { port })
  t.after(async () => { await legacy.close(); await modern.close() })
  const h = await harness(t, legacy.url)
  await h.manager.ready()
  const connection = h.manager.connection('swapped')!
  assert.equal(connection.protocolVersion, '2025-11-25')
  const states: string[] = []
  connection.on('state', (state) => states.push(state))

  await legacy.crash()
  await waitForState(connection, 'reconnecting')
  await modern.start()
  await waitForState(connection, 'connected')
  assert.equal(connection.protocolVersion, '2026-07-28')
  assert.equal(modern.count('server/discover'), 1, 'asked again once the -32022 came')
  assert.ok(!states.includes('circuit_open'), `no failure counted for the stale verdict: ${states.join(' → ')}`)
  assert.equal((await h.call('mcp__swapped__echo', {})).content, 'echo')
})

test('a server gone back to 2025 on the same address: the kept modern verdict fails and the server is negotiated again at once', async (t) => {
  const modern = new ModernMcpHttpServer(ECHO)
  await modern.start()
  const port = Number(new URL(modern.url).port)
  const legacy = new TestMcpHttpServer(ECHO, port)
  t.after(async () => { await modern.close(); await legacy.close() })
  const h = await harness(t, modern.url)
  await h.manager.ready()
  const connection = h.manager.connection('swapped')!
  assert.equal(connection.protocolVersion, '2026-07-28')
  const states: string[] = []
  connection.on('state', (state) => states.push(state))

  await modern.crash()
  await waitForState(connection, 'reconnecting')
  await legacy.start()
  await waitForState(connection, 'connected')
  assert.equal(connection.protocolVersion, '2025-11-25')
  assert.equal(legacy.count('initialize'), 1)
  assert.ok(!states.includes('circuit_open'), `no failure counted for the stale verdict: ${states.join(' → ')}`)
  assert.equal((await h.call('mcp__swapped__echo', {})).content, 'echo')
})
