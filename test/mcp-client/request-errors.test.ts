// Which typed error each kind of failed MCP request becomes, and which SDK and fetch errors mean the connection is gone.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client'
import {
  CancelledError, McpConnectionLostError, McpRequestFailedError, McpTimeoutError
} from '../../src/shared/errors.ts'
import { isConnectionLoss } from '../../src/mcp-client/link-failures.ts'
import { requestFailure, type FailedRequest } from '../../src/mcp-client/request-errors.ts'

const CALL: FailedRequest = { server: 'srv', label: 'tools/call "echo"', timeoutMs: 250 }

/** What undici's fetch rejects with: a bare TypeError whose cause is the network error. */
function fetchFailure (message: string, cause: Error): TypeError {
  return new TypeError(message, { cause })
}

function systemError (code: string, message: string): Error {
  return Object.assign(new Error(message), { code })
}

const LOSSES: Array<[string, unknown, boolean]> = [
  ['the SDK: connection closed', new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'), true],
  ['the SDK: not connected', new SdkError(SdkErrorCode.NotConnected, 'Not connected'), true],
  ['the SDK: send failed', new SdkError(SdkErrorCode.SendFailed, 'Send failed'), true],
  ['the SDK: a timeout is not a loss', new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'), false],
  ['HTTP 404 (the session is gone)', new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'Session not found', { status: 404 }), true],
  ['HTTP 502', new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'Bad gateway', { status: 502 }), true],
  ['HTTP 400', new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'Bad request', { status: 400 }), false],
  ['fetch failed: connection refused', fetchFailure('fetch failed', systemError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1')), true],
  ['fetch failed: unknown host', fetchFailure('fetch failed', systemError('ENOTFOUND', 'getaddrinfo ENOTFOUND x')), true],
  ['terminated mid-body: the socket closed', fetchFailure('terminated', systemError('UND_ERR_SOCKET', 'other side closed')), true],
  ['fetch refused before any network (no code)', fetchFailure('fetch failed', new Error('bad port')), false],
  ['a TypeError from a bug (no cause)', new TypeError('fetch failed'), false],
  ['a coded cause on something other than a TypeError', new Error('x', { cause: systemError('ECONNRESET', 'reset') }), false],
  ['the server answered with an error', new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found'), false],
  ['not an error at all', 'fetch failed', false]
]

for (const [name, err, lost] of LOSSES) {
  test(`connection loss or not: ${name}`, () => {
    assert.equal(isConnectionLoss(err), lost)
  })
}

test('an SDK timeout is an McpTimeoutError with the deadline, and makes the server suspect', () => {
  const failure = requestFailure(CALL, new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'))
  assert.ok(failure.error instanceof McpTimeoutError)
  assert.equal(failure.error.code, 'GW_ERR_MCP_TIMEOUT')
  assert.equal(failure.error.server, 'srv')
  assert.equal(failure.error.message, 'MCP server "srv" did not answer tools/call "echo" within 250 ms')
  assert.equal(failure.suspect, true)
  assert.equal(failure.lost, undefined)
})

test('a broken transport is an McpConnectionLostError carrying the cause, and the link is lost', () => {
  const err = fetchFailure('fetch failed', systemError('ECONNREFUSED', 'connect ECONNREFUSED'))
  const failure = requestFailure(CALL, err)
  assert.ok(failure.error instanceof McpConnectionLostError)
  assert.equal(failure.error.code, 'GW_ERR_MCP_CONNECTION_LOST')
  assert.equal(failure.error.message, 'MCP server "srv" went away during tools/call "echo": fetch failed (connect ECONNREFUSED)')
  assert.equal(failure.error.cause, err)
  assert.equal(failure.lost, 'the connection failed during tools/call "echo": fetch failed (connect ECONNREFUSED)')
  assert.equal(failure.suspect, undefined)
})

test('an error answer is an McpRequestFailedError carrying the cause; the link is fine', () => {
  const err = new ProtocolError(ProtocolErrorCode.InvalidParams, 'Unknown tool: echo')
  const failure = requestFailure(CALL, err)
  assert.ok(failure.error instanceof McpRequestFailedError)
  assert.equal(failure.error.code, 'GW_ERR_MCP_REQUEST_FAILED')
  assert.equal(failure.error.message, 'MCP server "srv" failed tools/call "echo": Unknown tool: echo')
  assert.equal(failure.error.cause, err)
  assert.deepEqual([failure.suspect, failure.lost], [undefined, undefined])
})

test('a call whose deadline aborted it is an McpTimeoutError, and makes the server suspect', () => {
  const signal = AbortSignal.abort(new DOMException('Tool mcp__srv__echo timed out after 300 ms', 'TimeoutError'))
  const failure = requestFailure({ ...CALL, signal }, new Error('This operation was aborted'))
  assert.ok(failure.error instanceof McpTimeoutError)
  assert.equal(failure.error.message, 'MCP server "srv" did not finish tools/call "echo": the call was cancelled (Tool mcp__srv__echo timed out after 300 ms)')
  assert.equal(failure.suspect, true)
})

test('a call its caller cancelled is a CancelledError; the server is not suspect', () => {
  const signal = AbortSignal.abort(new DOMException('The client went away', 'AbortError'))
  const failure = requestFailure({ ...CALL, signal }, new Error('This operation was aborted'))
  assert.ok(failure.error instanceof CancelledError)
  assert.equal(failure.error.code, 'GW_ERR_CANCELLED')
  assert.equal(failure.error.message, 'MCP server "srv" did not finish tools/call "echo": the call was cancelled (The client went away)')
  assert.deepEqual([failure.suspect, failure.lost], [undefined, undefined])
})
