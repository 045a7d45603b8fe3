// Which browser pages may use /mcp: the configured origins, else, on a loopback gateway, pages of
// the machine itself (as the MCP SDK and the conformance suite expect), else none.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { originPolicy } from '../../src/mcp-server/origin.ts'

test('no list, loopback gateway: loopback pages on any port pass, other pages do not, programs always', () => {
  const allowed = originPolicy([], '127.0.0.1')
  for (const origin of [undefined, 'http://localhost:6274', 'http://127.0.0.1:3000', 'https://[::1]:8443', 'http://LOCALHOST']) {
    assert.equal(allowed(origin), true, String(origin))
  }
  for (const origin of ['http://evil.example', 'http://localhost.evil.example', 'http://127.0.0.1.nip.io', 'file://localhost/x', 'null', 'not a url']) {
    assert.equal(allowed(origin), false, origin)
  }
})

test('no list, gateway on another address: no page passes', () => {
  const allowed = originPolicy([], '0.0.0.0')
  assert.equal(allowed('http://localhost:6274'), false)
  assert.equal(allowed(undefined), true)
})

test('a configured list is exact (scheme, host and port; case and a trailing slash aside); * allows any', () => {
  const allowed = originPolicy(['http://localhost:6274', 'https://Console.Example.com/'], '127.0.0.1')
  assert.equal(allowed('http://localhost:6274'), true)
  assert.equal(allowed('https://console.example.com'), true)
  assert.equal(allowed('http://localhost:3000'), false)
  assert.equal(allowed('http://console.example.com'), false)
  assert.equal(originPolicy(['*'], '0.0.0.0')('http://anything.example'), true)
})
