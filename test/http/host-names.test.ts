// The Host and Origin checks use the MCP SDK's rules written out (the SDK loads only where MCP is
// used): held here to the SDK's own functions, so that an SDK update that changes them shows.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { localhostAllowedHostnames, validateHostHeader } from '@modelcontextprotocol/server'
import { checkHostHeader, LOOPBACK_HOSTNAMES } from '../../src/http/host-names.ts'
import { originPolicy } from '../../src/mcp-server/origin.ts'

test('the loopback names are the SDK\'s localhostAllowedHostnames()', () => {
  assert.deepEqual([...LOOPBACK_HOSTNAMES].sort(), [...localhostAllowedHostnames()].sort())
  const allowed = originPolicy([], '127.0.0.1')
  for (const name of LOOPBACK_HOSTNAMES) assert.equal(allowed(`http://${name}:6274`), true, name)
})

test('checkHostHeader gives the SDK\'s verdict and words for every kind of Host header', () => {
  const allowed = [...localhostAllowedHostnames(), 'gateway.example']
  const hosts = ['', 'localhost', 'localhost:8080', 'LOCALHOST:1', '127.0.0.1:3000', '[::1]:80', '[::1]', 'gateway.example',
    'evil.example', 'localhost.evil.example', '127.0.0.1.nip.io', 'exa mple', 'a/b', '[::1', 'localhost:99999', 'user@localhost']
  for (const host of hosts) {
    const sdk = validateHostHeader(host, allowed)
    const ours = checkHostHeader(host, allowed)
    assert.equal(ours.ok, sdk.ok, host)
    if (ours.ok && sdk.ok) assert.equal(ours.hostname, sdk.hostname, host)
    if (!ours.ok && !sdk.ok) assert.equal(ours.message, sdk.message, host)
  }
})
