// When a call refused for an unknown session is sent again, and how long it waits for the new one.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import { SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client'
import { McpConnectionLostError, McpRequestFailedError } from '../../src/shared/errors.ts'
import type { McpConnection, McpConnectionState } from '../../src/mcp-client/connection.ts'
import { isSessionRefusal, reconnected } from '../../src/mcp-client/relayed-call.ts'

const http = (status: number) => new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint (${status})`, { status })
const lost = (cause: unknown) => new McpConnectionLostError('a', 'MCP server "a" went away', { cause })

test('only a 404 to a call that carried a session is a refusal of the session', () => {
  assert.equal(isSessionRefusal(lost(http(404)), 'session-1'), true)
  assert.equal(isSessionRefusal(lost(http(404)), undefined), false, 'without a session, 404 says the endpoint is gone')
  assert.equal(isSessionRefusal(lost(http(503)), 'session-1'), false, 'the server failing is no refusal: the call may have run')
  assert.equal(isSessionRefusal(new McpRequestFailedError('a', 'failed', { cause: http(404) }), 'session-1'), false)
  assert.equal(isSessionRefusal(http(404), 'session-1'), false)
})

/** Just what reconnected() reads of a connection: its state, its events and its connect timeout. */
function connectionIn (state: McpConnectionState, connectTimeoutMs = 5_000) {
  const emitter = Object.assign(new EventEmitter(), { state, connectTimeoutMs })
  const move = (next: McpConnectionState): void => { emitter.state = next; emitter.emit('state', next) }
  return { connection: emitter as unknown as McpConnection, move }
}

test('reconnected: true once connected, false when the circuit opens, the call is cancelled or time runs out', async () => {
  assert.equal(await reconnected(connectionIn('connected').connection, new AbortController().signal), true)

  const back = connectionIn('reconnecting')
  const waiting = reconnected(back.connection, new AbortController().signal)
  back.move('connected')
  assert.equal(await waiting, true)

  const broken = connectionIn('reconnecting')
  const circuit = reconnected(broken.connection, new AbortController().signal)
  broken.move('circuit_open')
  assert.equal(await circuit, false)

  const controller = new AbortController()
  const cancelled = reconnected(connectionIn('reconnecting').connection, controller.signal)
  controller.abort()
  assert.equal(await cancelled, false)

  const began = Date.now()
  assert.equal(await reconnected(connectionIn('reconnecting', 50).connection, new AbortController().signal), false)
  assert.ok(Date.now() - began < 2_000)
})
