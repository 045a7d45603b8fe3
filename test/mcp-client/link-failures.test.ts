// The message of a failure to reach a server, as operators read it in lastError: the network cause
// of fetch's bare "fetch failed", and the server's own reason when the SDK's message drops it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client'
import { failureMessage } from '../../src/mcp-client/link-failures.ts'

const BODY = '{"error":{"code":"GW_ERR_UNAUTHORIZED","message":"a valid API key is required"}}'

test('the server/discover probe\'s 401 keeps the server\'s reason, which the SDK\'s message leaves out', () => {
  const probe = new SdkHttpError(SdkErrorCode.ClientHttpAuthentication, 'Version negotiation failed: the server requires authorization (HTTP 401)', {
    status: 401, statusText: 'Unauthorized', text: BODY
  })
  assert.equal(failureMessage(probe), `Version negotiation failed: the server requires authorization (HTTP 401): ${BODY}`)
})

test('a message that already carries the body is left as it is; a long body is cut to 500 characters', () => {
  const legacy = new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${BODY}`, { status: 401, statusText: 'Unauthorized', text: BODY })
  assert.equal(failureMessage(legacy), `Error POSTing to endpoint: ${BODY}`)
  const long = new SdkHttpError(SdkErrorCode.ClientHttpForbidden, 'Forbidden (HTTP 403)', { status: 403, statusText: 'Forbidden', text: 'x'.repeat(10_000) })
  assert.equal(failureMessage(long), `Forbidden (HTTP 403): ${'x'.repeat(500)}`)
})

test('fetch\'s bare "fetch failed" gets its network cause', () => {
  const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }) })
  assert.equal(failureMessage(refused), 'fetch failed (connect ECONNREFUSED 127.0.0.1:1)')
})
