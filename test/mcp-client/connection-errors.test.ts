// The typed errors a connection throws against real servers: not connected, timed out, died mid-call, answered an error.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { ProtocolError, SdkError } from '@modelcontextprotocol/client'
import type { McpServerConfig } from '../../src/config/schema.ts'
import {
  McpConnectionLostError, McpRequestFailedError, McpTimeoutError, McpUnavailableError
} from '../../src/shared/errors.ts'
import { McpConnection } from '../../src/mcp-client/connection.ts'
import { captureLogger } from '../helpers/logger.ts'
import { TestMcpHttpServer } from './helpers/http-server.ts'
import { writeTinyServer } from './helpers/tiny-server.ts'
import { until, waitForState } from './helpers/wait.ts'

let tiny: { dir: string, script: string }
let http: TestMcpHttpServer

before(async () => {
  tiny = await writeTinyServer()
  http = new TestMcpHttpServer({
    echo: { run: () => ({ content: [{ type: 'text', text: 'hi' }] }) },
    // Settles only when cancelled, so the server is left clean.
    hang: { run: (_args, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ content: [] }), { once: true })) }
  })
  await http.start()
})

after(async () => {
  await http.close()
  await rm(tiny.dir, { recursive: true, force: true })
})

function connect (server: string, config: McpServerConfig, log = captureLogger('silent')): McpConnection {
  return new McpConnection({ server, config, logger: log.logger, tuning: { pingIntervalMs: 0, failureThreshold: 1000 } })
}

test('a call while not connected: McpUnavailableError (503) with the state and the reason', async (t) => {
  const connection = connect('idle', { url: http.url } as McpServerConfig)
  t.after(() => connection.close())
  const notYet = await connection.callTool('echo', {}).catch((err: unknown) => err)
  assert.ok(notYet instanceof McpUnavailableError)
  assert.equal(notYet.code, 'GW_ERR_MCP_UNAVAILABLE')
  assert.equal(notYet.statusCode, 503)
  assert.equal(notYet.server, 'idle')
  assert.equal(notYet.message, 'MCP server "idle" is connecting')

  const disabled = connect('off', { url: http.url, enabled: false } as McpServerConfig)
  await assert.rejects(disabled.request('prompts/list', (client, request) => client.listPrompts(undefined, request)), (err) => {
    assert.ok(err instanceof McpUnavailableError)
    assert.equal(err.message, 'MCP server "off" is disabled: disabled in the configuration')
    return true
  })
})

test('a call that times out: McpTimeoutError (504) naming the deadline; the server stays connected', async (t) => {
  const connection = connect('slow', { url: http.url } as McpServerConfig)
  t.after(() => connection.close())
  await connection.start()
  const err = await connection.callTool('hang', {}, { timeoutMs: 200 }).catch((thrown: unknown) => thrown)
  assert.ok(err instanceof McpTimeoutError)
  assert.equal(err.code, 'GW_ERR_MCP_TIMEOUT')
  assert.equal(err.statusCode, 504)
  assert.equal(err.server, 'slow')
  assert.equal(err.message, 'MCP server "slow" did not answer tools/call "hang" within 200 ms')
  // The timeout made the gateway ping the server; it answered, so nothing changes.
  await until(() => http.count('ping') > 0, 'a liveness ping')
  assert.equal(connection.state, 'connected')
  assert.equal((await connection.callTool('echo', {})).content, 'hi')
})

test('a server that dies mid-call: McpConnectionLostError (502) with the SDK error as cause, and a reconnection', async (t) => {
  const log = captureLogger('debug')
  const connection = connect('mortal', { command: process.execPath, args: [tiny.script] } as McpServerConfig, log)
  t.after(() => connection.close())
  await connection.start()
  const pid = connection.pid!
  const call = connection.callTool('slow', { ms: 60_000, tag: 'doomed' }).catch((err: unknown) => err)
  await until(() => log.text().includes('slow started doomed'), 'the call to reach the server')
  process.kill(pid, 'SIGKILL')
  const err = await call
  assert.ok(err instanceof McpConnectionLostError, `got ${String(err)}`)
  assert.equal(err.code, 'GW_ERR_MCP_CONNECTION_LOST')
  assert.equal(err.statusCode, 502)
  assert.equal(err.server, 'mortal')
  assert.match(err.message, /^MCP server "mortal" went away during tools\/call "slow": /)
  assert.ok(err.cause instanceof SdkError)
  assert.notEqual(connection.state, 'connected')
  await waitForState(connection, 'connected')
  assert.notEqual(connection.pid, pid)
})

test('a server answering with an error: McpRequestFailedError (502) with the protocol error as cause', async (t) => {
  const connection = connect('picky', { url: http.url } as McpServerConfig)
  t.after(() => connection.close())
  await connection.start()
  const err = await connection.callTool('nope', {}).catch((thrown: unknown) => thrown)
  assert.ok(err instanceof McpRequestFailedError, `got ${String(err)}`)
  assert.equal(err.code, 'GW_ERR_MCP_REQUEST_FAILED')
  assert.equal(err.statusCode, 502)
  assert.equal(err.server, 'picky')
  assert.match(err.message, /^MCP server "picky" failed tools\/call "nope": .*nope/)
  assert.ok(err.cause instanceof ProtocolError)
  assert.equal(connection.state, 'connected', 'an error answer says nothing against the connection')
})
