// Per-caller rate limit: 429 with Retry-After past the budget, per API key, health exempt.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

const sha = (key: string) => createHash('sha256').update(key).digest('hex')

test('past its budget a caller gets 429 with Retry-After; another key and health are unaffected', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-rate-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'gw.yaml'), `auth:\n  keys:\n    - { name: a, sha256: ${sha('key-a')} }\n    - { name: b, sha256: ${sha('key-b')} }\n`)
  const { app } = await buildTestApp(t, { GATEWAY_CONFIG: join(dir, 'gw.yaml'), RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' })
  app.gateway.registry.register(fixtureTool('echo'))
  const call = (key: string) => app.inject({ method: 'POST', url: '/dispatch/echo', payload: {}, headers: { authorization: `Bearer ${key}` } })
  for (let i = 0; i < 3; i++) assert.equal((await call('key-a')).statusCode, 200)
  const limited = await call('key-a')
  assert.equal(limited.statusCode, 429)
  assert.ok(Number(limited.headers['retry-after']) > 0)
  const body = limited.json()
  assert.equal(body.status, 'unavailable')
  assert.equal(body.error.code, 'GW_ERR_RATE_LIMITED')
  assert.match(JSON.parse(body.content).error, /rate limit of 3 requests/)
  assert.equal((await call('key-b')).statusCode, 200, 'each key has its own budget')
  for (let i = 0; i < 5; i++) assert.equal((await app.inject('/healthz')).statusCode, 200)
  const tools = await app.inject({ url: '/tools', headers: { authorization: 'Bearer key-a' } })
  assert.equal(tools.statusCode, 429)
  assert.equal(tools.json().code, 'GW_ERR_RATE_LIMITED')
})

test('without RATE_LIMIT_MAX there is no limit', async (t) => {
  const { app } = await buildTestApp(t)
  app.gateway.registry.register(fixtureTool('echo'))
  for (let i = 0; i < 50; i++) assert.equal((await app.inject({ method: 'POST', url: '/dispatch/echo', payload: {} })).statusCode, 200)
})

test('behind a trusted proxy (TRUST_PROXY) each client address has its budget; X-Forwarded-For from anyone else is ignored', async (t) => {
  const forwardedFor = (address: string) => ({ 'x-forwarded-for': address })
  const { app: proxied } = await buildTestApp(t, { RATE_LIMIT_MAX: '2', TRUST_PROXY: '127.0.0.0/8' })
  proxied.gateway.registry.register(fixtureTool('echo'))
  const viaProxy = (address: string) => proxied.inject({ method: 'POST', url: '/dispatch/echo', payload: {}, headers: forwardedFor(address) })
  for (let i = 0; i < 2; i++) assert.equal((await viaProxy('203.0.113.7')).statusCode, 200)
  assert.equal((await viaProxy('203.0.113.7')).statusCode, 429)
  assert.equal((await viaProxy('198.51.100.9')).statusCode, 200, 'another client behind the proxy has its own budget')
  // Without TRUST_PROXY a client cannot pick its address: every request is the connection's.
  const { app: direct } = await buildTestApp(t, { RATE_LIMIT_MAX: '2' })
  direct.gateway.registry.register(fixtureTool('echo'))
  const spoofed = (address: string) => direct.inject({ method: 'POST', url: '/dispatch/echo', payload: {}, headers: forwardedFor(address) })
  for (const address of ['203.0.113.1', '203.0.113.2']) assert.equal((await spoofed(address)).statusCode, 200)
  assert.equal((await spoofed('203.0.113.3')).statusCode, 429)
})
