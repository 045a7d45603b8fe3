// Key guessing is limited: after AUTH_FAILURE_MAX failed authentications from one client address
// within AUTH_FAILURE_WINDOW_MS, that address gets 429 with Retry-After on every guarded route (its
// right key included, or the limit would tell a guesser when it hit) until the window ends. Other
// addresses and the open health routes are unaffected.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app/app.ts'
import { AuthFailures } from '../../src/http/auth-failures.ts'
import { loadConfig } from '../../src/config/load.ts'
import { createLogger } from '../../src/app/logger.ts'
import { captureLogger } from '../helpers/logger.ts'

const KEY = 'the-right-key-2b3c4d5e'
const GUESSER = '203.0.113.7'
const NEIGHBOUR = '198.51.100.9'

interface TestContext { after: (fn: () => Promise<void> | void) => void }

async function keyedApp (t: TestContext, env: Record<string, string>): Promise<FastifyInstance> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-authfail-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'gateway.yaml'), `auth:\n  keys:\n    - { name: ops, sha256: ${createHash('sha256').update(KEY).digest('hex')} }\n`)
  const config = await loadConfig({ cwd: dir, env: { GATEWAY_CONFIG: 'gateway.yaml', TOOLS_DIR: join(dir, 'none'), WORKSPACE_ROOT: join(dir, 'ws'), LOG_LEVEL: 'silent', ...env } })
  const app = await buildApp(config, { logger: createLogger(config, captureLogger().stream) })
  t.after(() => app.close())
  return app
}

function asFrom (app: FastifyInstance, address: string, key: string, url = '/tools') {
  return app.inject({ url, remoteAddress: address, headers: { authorization: `Bearer ${key}` } })
}

test('after too many failed authentications an address gets 429 with Retry-After, its right key included', async (t) => {
  const app = await keyedApp(t, { AUTH_FAILURE_MAX: '3', AUTH_FAILURE_WINDOW_MS: '60000' })
  for (let i = 0; i < 3; i++) assert.equal((await asFrom(app, GUESSER, `guess-${i}`)).statusCode, 401)
  for (const key of ['guess-4', KEY]) {
    const limited = await asFrom(app, GUESSER, key)
    assert.equal(limited.statusCode, 429, key)
    assert.equal(limited.json().code, 'GW_ERR_RATE_LIMITED')
    assert.match(limited.json().message, /too many failed authentications/)
    const retryAfter = Number(limited.headers['retry-after'])
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${limited.headers['retry-after']}`)
  }
  // The envelope on dispatch, as every other refusal there.
  const dispatch = await app.inject({ method: 'POST', url: '/dispatch/x', remoteAddress: GUESSER, payload: {} })
  assert.equal(dispatch.statusCode, 429)
  assert.equal(dispatch.json().status, 'unavailable')
  // Another address, and the open routes, are not affected.
  assert.equal((await asFrom(app, NEIGHBOUR, KEY)).statusCode, 200)
  assert.equal((await asFrom(app, GUESSER, 'any', '/healthz')).statusCode, 200)
})

test('the lockout ends with the window', async (t) => {
  const app = await keyedApp(t, { AUTH_FAILURE_MAX: '2', AUTH_FAILURE_WINDOW_MS: '300' })
  for (let i = 0; i < 2; i++) await asFrom(app, GUESSER, 'wrong')
  assert.equal((await asFrom(app, GUESSER, KEY)).statusCode, 429)
  let status = 429
  for (let attempt = 0; attempt < 100 && status === 429; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    status = (await asFrom(app, GUESSER, KEY)).statusCode
  }
  assert.equal(status, 200)
})

test('mcp-remote\'s OAuth discovery probes are public 404s, and requests without a key are not counted', async (t) => {
  const app = await keyedApp(t, { AUTH_FAILURE_MAX: '2', AUTH_FAILURE_WINDOW_MS: '60000' })
  // What mcp-remote sends, without a key, at each start; twice, as a user restarting Claude Desktop would.
  const probes = [
    ['GET', '/.well-known/oauth-protected-resource'],
    ['GET', '/.well-known/oauth-protected-resource/mcp'],
    ['GET', '/.well-known/oauth-authorization-server'],
    ['GET', '/.well-known/oauth-authorization-server/mcp'],
    ['GET', '/.well-known/openid-configuration'],
    ['POST', '/register']
  ] as const
  for (let start = 0; start < 2; start++) {
    for (const [method, url] of probes) {
      const answer = await app.inject({ method, url, remoteAddress: GUESSER, ...(method === 'POST' ? { payload: { client_name: 'mcp-remote' } } : {}) })
      assert.equal(answer.statusCode, 404, url)
      assert.equal(answer.json().code, 'GW_ERR_NOT_FOUND')
      assert.match(answer.json().message, /does not offer OAuth.*Authorization: Bearer/, url)
    }
    // Then its first call before the key is attached (a 401 telling what to send), uncounted.
    const bare = await app.inject({ method: 'POST', url: '/mcp', remoteAddress: GUESSER, payload: {} })
    assert.equal(bare.statusCode, 401)
    assert.match(bare.body, /API key is required/)
  }
  assert.equal((await asFrom(app, GUESSER, KEY)).statusCode, 200, 'the valid key still gets in')
  // A presented wrong key still counts.
  for (let i = 0; i < 2; i++) assert.equal((await asFrom(app, GUESSER, 'wrong')).statusCode, 401)
  assert.equal((await asFrom(app, GUESSER, KEY)).statusCode, 429)
})

test('the table of addresses stays bounded: the oldest entries make room', () => {
  let now = 0
  const failures = new AuthFailures({ max: 1, windowMs: 1_000, capacity: 3, now: () => now })
  for (const address of ['a', 'b', 'c', 'd']) failures.record(address)
  assert.equal(failures.size, 3)
  assert.equal(failures.retryAfterSeconds('a'), 0, 'the oldest was dropped')
  assert.equal(failures.retryAfterSeconds('d'), 1)
  now = 1_000
  failures.record('e')
  assert.equal(failures.size, 1, 'expired entries are swept first')
})
