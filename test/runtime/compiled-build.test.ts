// The compiled build (what `npm start` and the image run) loads every module the sources do. Tests
// run the TypeScript sources, where a `.ts` specifier works; in the build each must have become
// `.js`, and TypeScript 6.0 leaves some as they were (a dynamic import inside an `export default`
// expression): the build then fails only when that import runs, REDIS_URL set for instance. So the
// emitted files are searched for a relative `.ts` specifier, and the compiled server is run with
// every lazily loaded part of the edge in use: Redis, API keys, a rate limit, an Idempotency-Key,
// and code mode (a worker thread and QuickJS's WebAssembly).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { compiledApp } from '../helpers/compiled-app.ts'
import { startRedis } from '../helpers/redis-server.ts'
import { listeningPort, startServer } from '../helpers/server-process.ts'

// import('./x.ts'), import("./x.ts"), from './x.ts', from "../x.ts": relative specifiers only.
const TS_SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*)(['"])(\.{1,2}\/[^'"]+\.ts)\1/g

async function compiledFiles (dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.js')).map((entry) => join(entry.parentPath, entry.name))
}

test('the compiled build has no .ts specifier left and serves with Redis, keys, a rate limit and an Idempotency-Key', { timeout: 120_000 }, async (t) => {
  const app = await compiledApp(t, 'gw-compiled-')

  const left: string[] = []
  for (const file of await compiledFiles(join(app, 'dist'))) {
    for (const [, , specifier] of (await readFile(file, 'utf8')).matchAll(TS_SPECIFIER)) left.push(`${file.slice(app.length + 1)}: ${specifier}`)
  }
  assert.deepEqual(left, [], 'relative .ts specifiers in the compiled build')

  const redis = await startRedis(t)
  await mkdir(join(app, 'workspace'))
  await writeFile(join(app, 'gw.yaml'), `auth:\n  keys:\n    - { name: a, sha256: ${createHash('sha256').update('key-a').digest('hex')} }\n`)
  const server = startServer(t, {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: app,
    PORT: '0',
    WORKSPACE_ROOT: join(app, 'workspace'),
    GATEWAY_CONFIG: join(app, 'gw.yaml'),
    REDIS_URL: redis.url,
    RATE_LIMIT_MAX: '100',
    CODE_MODE: 'true'
  }, join(app, 'dist', 'src', 'server.js'))
  const base = `http://127.0.0.1:${await listeningPort(server)}`
  const ready = await (await fetch(`${base}/readyz`)).json() as { redis?: { connected: boolean } }
  assert.equal(ready.redis?.connected, true, JSON.stringify(ready))
  assert.equal((await fetch(`${base}/tools`, { headers: { authorization: 'Bearer wrong' } })).status, 401)
  const write = async () => await fetch(`${base}/dispatch/write_file`, {
    method: 'POST',
    headers: { authorization: 'Bearer key-a', 'content-type': 'application/json', 'idempotency-key': 'compiled-1' },
    body: JSON.stringify({ path: 'a.txt', content: 'hello' })
  })
  assert.equal((await write()).status, 200)
  const again = await write()
  assert.equal(again.status, 200)
  assert.equal(again.headers.get('idempotent-replayed'), 'true')
  // Code mode's sandbox runs its worker and QuickJS's WebAssembly from the build too.
  const script = await fetch(`${base}/dispatch/execute_code`, {
    method: 'POST',
    headers: { authorization: 'Bearer key-a', 'content-type': 'application/json' },
    body: JSON.stringify({ code: 'const file = await tools.read_file({ path: "a.txt" }); return file.content' })
  })
  const answer = await script.json() as { status: string, content: string }
  assert.equal(answer.status, 'ok', answer.content)
  assert.match(JSON.parse(answer.content).result, /hello/)
  assert.equal(server.stderr(), '')
})
