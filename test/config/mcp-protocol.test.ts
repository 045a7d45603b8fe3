// mcpServers.<name>.protocol: the revisions an upstream may be pinned to, read from real files, a
// bad value refused naming the field (and only it: the other server shape's complaints are left
// out), and the list kept equal to what the installed MCP client SDK can speak.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/client'
import { loadConfig } from '../../src/config/load.ts'
import { MCP_PROTOCOL_SETTINGS } from '../../src/config/schema.ts'

interface TestContext { after: (fn: () => Promise<void>) => void }

async function load (t: TestContext, yaml: string): Promise<Awaited<ReturnType<typeof loadConfig>>> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-config-protocol-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'gateway.yaml'), yaml)
  return loadConfig({ cwd: dir, env: { GATEWAY_CONFIG: join(dir, 'gateway.yaml') } })
}

test('protocol takes auto, 2026-07-28 or a 2025-era revision; unquoted YAML dates stay strings; absent means auto', async (t) => {
  const config = await load(t, [
    'mcpServers:',
    '  a: { url: "http://127.0.0.1:1/mcp", protocol: auto }',
    '  b: { url: "http://127.0.0.1:1/mcp", protocol: 2026-07-28 }',
    '  c: { command: node, protocol: 2025-06-18 }',
    '  d: { command: node }',
    ''
  ].join('\n'))
  assert.equal(config.mcpServers.a.protocol, 'auto')
  assert.equal(config.mcpServers.b.protocol, '2026-07-28')
  assert.equal(config.mcpServers.c.protocol, '2025-06-18')
  assert.equal(config.mcpServers.d.protocol, undefined)
})

test('a protocol outside the list is refused at start, naming the field, the allowed values and the value', async (t) => {
  const err = await load(t, [
    'mcpServers:',
    '  remote: { url: "http://127.0.0.1:1/mcp", headers: { Authorization: Bearer s3cret }, protocol: 2026-01-01 }',
    '  local: { command: node, protocol: latest }',
    ''
  ].join('\n')).then(() => undefined, (thrown: unknown) => thrown)
  assert.ok(err instanceof Error)
  assert.equal((err as { code?: string }).code, 'GW_ERR_INVALID_CONFIG')
  const lines = err.message.split('\n').slice(1).map((line) => line.trim())
  const allowed = '(auto, 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07)'
  assert.deepEqual(lines, [
    `mcpServers.remote.protocol: must be equal to one of the allowed values ${allowed}, got "2026-01-01"`,
    `mcpServers.local.protocol: must be equal to one of the allowed values ${allowed}, got "latest"`
  ], 'only the field at fault: no "must have required properties command" for an HTTP server')
  assert.doesNotMatch(err.message, /s3cret/)
})

test('the revisions offered are the modern one and exactly the 2025-era list of the installed client SDK', () => {
  assert.deepEqual(MCP_PROTOCOL_SETTINGS, ['auto', '2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS])
})
