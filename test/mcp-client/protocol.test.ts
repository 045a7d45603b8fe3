// The configured protocol as the SDK client's options, and failures told in its terms: what a pin
// becomes, what the server said it supports, which field to change.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client'
import { eraOf, negotiationOptions, pinMismatch, protocolFailure, unsupportedVersion } from '../../src/mcp-client/protocol.ts'

test('auto probes; a 2026-07-28 pin is the SDK\'s pin; a 2025 pin is an initialize offering only that revision', () => {
  assert.deepEqual(negotiationOptions('auto'), { versionNegotiation: { mode: 'auto' } })
  assert.deepEqual(negotiationOptions('2026-07-28'), { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  assert.deepEqual(negotiationOptions('2025-06-18'), { versionNegotiation: { mode: 'legacy' }, supportedProtocolVersions: ['2025-06-18'] })
  assert.equal(eraOf('2026-07-28'), 'modern')
  assert.equal(eraOf('2025-11-25'), 'legacy')
})

test('a pin holds: another negotiated revision is a mismatch naming the field; auto accepts any', () => {
  assert.equal(pinMismatch('s', 'auto', '2025-03-26'), undefined)
  assert.equal(pinMismatch('s', '2025-06-18', '2025-06-18'), undefined)
  assert.equal(pinMismatch('s', '2025-06-18', '2025-11-25'), 'the server speaks MCP 2025-11-25, not the pinned 2025-06-18 (mcpServers.s.protocol)')
})

test('-32022 is read from a JSON-RPC error and from the HTTP 400 that carried one', () => {
  assert.deepEqual(unsupportedVersion(new ProtocolError(-32022, 'Unsupported protocol version: 2025-11-25', { supported: ['2026-07-28'] })), { supported: ['2026-07-28'] })
  const http = new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'Error POSTing to endpoint', {
    status: 400, statusText: 'Bad Request', text: '{"jsonrpc":"2.0","error":{"code":-32022,"message":"Unsupported","data":{"supported":["2026-07-28"]}},"id":0}'
  })
  assert.deepEqual(unsupportedVersion(http), { supported: ['2026-07-28'] })
  assert.equal(unsupportedVersion(new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'x', { status: 400, statusText: 'Bad Request', text: 'not json' })), undefined)
  assert.equal(unsupportedVersion(new ProtocolError(-32601, 'Method not found')), undefined)
})

test('failures about the revision are told in the configuration\'s terms; others are left to the caller', () => {
  const refused = new ProtocolError(-32022, 'Unsupported protocol version: 2025-06-18', { supported: ['2026-07-28'] })
  assert.equal(protocolFailure('s', '2025-06-18', refused), 'the server does not speak the pinned MCP 2025-06-18 (mcpServers.s.protocol); it supports 2026-07-28')
  assert.equal(protocolFailure('s', 'auto', refused), 'the server refused the MCP revisions offered; it supports 2026-07-28')
  assert.match(protocolFailure('s', '2026-07-28', new SdkError(SdkErrorCode.EraNegotiationFailed, 'no pinned version'))!,
    /^the server does not offer the pinned MCP 2026-07-28 \(mcpServers\.s\.protocol; auto speaks whichever revision it offers\): no pinned version$/)
  assert.equal(protocolFailure('s', '2025-03-26', new Error('Server\'s protocol version is not supported: 2025-11-25')),
    'the server answered with MCP 2025-11-25, not the pinned 2025-03-26 (mcpServers.s.protocol)')
  assert.equal(protocolFailure('s', 'auto', new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed')), undefined)
})
