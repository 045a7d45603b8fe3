// Plugins configured in the config file load at start (after built-in tools) and act on HTTP calls.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { buildTestApp } from '../helpers/app.ts'

test('the sample policy plugin, configured by file, blocks a built-in tool over HTTP', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-plugin-http-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const policy = resolve(import.meta.dirname, '../../plugins/policy.ts')
  await writeFile(join(dir, 'gw.yaml'), `plugins:\n  - module: ${JSON.stringify(policy)}\n    options: { deny: [write_file] }\n`)
  const { app } = await buildTestApp(t, { GATEWAY_CONFIG: join(dir, 'gw.yaml') }, { builtins: true })
  const blocked = await app.inject({ method: 'POST', url: '/dispatch/write_file', payload: { path: 'x.txt', content: 'x' } })
  assert.equal(blocked.statusCode, 403)
  assert.equal(blocked.json().status, 'blocked')
  assert.match(blocked.json().content, /blocked by policy/)
  const allowed = await app.inject({ method: 'POST', url: '/dispatch/search_files', payload: { pattern: 'x' } })
  assert.equal(allowed.statusCode, 200)
})
