// The identity the gateway announces (MCP serverInfo and clientInfo, OpenAPI) is the package's.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { GATEWAY_IDENTITY } from '../../src/shared/version.ts'

test('GATEWAY_IDENTITY names the package and its version', async () => {
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string, version: string }
  assert.deepEqual({ ...GATEWAY_IDENTITY }, { name: pkg.name, version: pkg.version })
})
