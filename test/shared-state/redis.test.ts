// Two gateway apps in one process sharing a real redis-server: one rate-limit budget per caller,
// results kept by one read on the other, Idempotency-Key records seen by both, each key's results and
// answers within its own budget in Redis; and what happens
// when Redis is down at start, dies mid-run or hangs: every call still answers, from memory, and
// /readyz and the logs say so.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { toolResult } from '../../src/registry/tool-result.ts'
import { buildTestApp } from '../helpers/app.ts'
import type { CapturedLogger } from '../helpers/logger.ts'
import { startRedis } from '../helpers/redis-server.ts'
import { fixtureTool } from '../helpers/tools.ts'

interface TestContext { after: (fn: () => Promise<void> | void) => void }

const sha = (key: string): string => createHash('sha256').update(key).digest('hex')
const LONG_TEXT = Array.from({ length: 400 }, (_, n) => `line ${n}`).join('\n')

/** Two apps on `redisUrl` with keys a and b, each with the counting tools; `runs` counts over both. */
async function replicas (t: TestContext, redisUrl: string, env: Record<string, string> = {}) {
  const { dir } = await buildTestApp(t)
  const config = join(dir, 'gw.yaml')
  await writeFile(config, `auth:\n  keys:\n    - { name: a, sha256: ${sha('key-a')} }\n    - { name: b, sha256: ${sha('key-b')} }\n`)
  const runs = { count: 0, gate: 0 }
  const gate = Promise.withResolvers<void>()
  const started = Promise.withResolvers<void>()
  const apps: FastifyInstance[] = []
  const logs: CapturedLogger[] = []
  for (let n = 0; n < 2; n++) {
    const { app, log } = await buildTestApp(t, { GATEWAY_CONFIG: config, REDIS_URL: redisUrl, REDIS_CONNECT_TIMEOUT_MS: '1000', ...env })
    app.gateway.registry.register(fixtureTool('count', { handler: async () => toolResult({ run: ++runs.count }) }))
    app.gateway.registry.register(fixtureTool('long', { maxResultSizeChars: 300, handler: async () => LONG_TEXT }))
    app.gateway.registry.register(fixtureTool('gate', {
      handler: async () => {
        const run = ++runs.gate
        started.resolve()
        await gate.promise
        return toolResult({ run })
      }
    }))
    apps.push(app)
    logs.push(log)
  }
  return { apps, logs, runs, open: () => gate.resolve(), started: started.promise }
}

const call = async (app: FastifyInstance, tool: string, headers: Record<string, string> = {}, key = 'key-a') =>
  await app.inject({ method: 'POST', url: `/dispatch/${tool}`, payload: {}, headers: { authorization: `Bearer ${key}`, ...headers } })

const readiness = async (app: FastifyInstance) => (await app.inject('/readyz')).json()

test('replicas share one rate-limit budget per caller', async (t) => {
  const redis = await startRedis(t)
  const { apps } = await replicas(t, redis.url, { RATE_LIMIT_MAX: '4', RATE_LIMIT_WINDOW_MS: '60000' })
  const statuses: number[] = []
  for (let n = 0; n < 8; n++) statuses.push((await call(apps[n % 2], 'count')).statusCode)
  assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429, 429, 429])
  assert.equal((await call(apps[0], 'count', {}, 'key-b')).statusCode, 200, 'another key has its own budget')
  assert.deepEqual((await readiness(apps[0])).redis, { connected: true, degraded: [] })
  assert.match((await apps[0].inject({ url: '/metrics', headers: { authorization: 'Bearer key-a' } })).body, /^gateway_redis_connected 1$/m)
})

test('failed authentications count for all replicas: past the budget, one more try per replica at most', async (t) => {
  const redis = await startRedis(t)
  const { apps } = await replicas(t, redis.url, { AUTH_FAILURE_MAX: '3', AUTH_FAILURE_WINDOW_MS: '60000' })
  const statuses = async (app: FastifyInstance, key: string) => (await call(app, 'count', {}, key)).statusCode
  for (const app of [apps[0], apps[1], apps[0]]) assert.equal(await statuses(app, 'wrong'), 401)
  // The shared count reaches a replica just after its answer.
  await sleep(100)
  assert.equal(await statuses(apps[0], 'key-a'), 429, 'refused even with a right key')
  assert.equal(await statuses(apps[1], 'wrong'), 401, 'the other replica had seen one failure only')
  await sleep(100)
  assert.equal(await statuses(apps[1], 'key-a'), 429)
})

test('a result cut on one replica is read on the other, by its owner only', async (t) => {
  const redis = await startRedis(t)
  const { apps } = await replicas(t, redis.url)
  const cut = (await call(apps[0], 'long')).json()
  assert.equal(cut.truncated, true)
  assert.match(cut.resultId, /^res_/)
  const read = async (app: FastifyInstance, query: string, key = 'key-a') =>
    await app.inject({ url: `/results/${cut.resultId}?${query}`, headers: { authorization: `Bearer ${key}` } })
  let text = ''
  for (let offset: number | null = 0; offset !== null;) {
    const page: { content: string, nextOffset: number | null } = (await read(apps[1], `offset=${offset}&limit=1000`)).json()
    text += page.content
    offset = page.nextOffset
  }
  assert.equal(text, LONG_TEXT)
  assert.equal((await read(apps[1], 'limit=10', 'key-b')).statusCode, 404)
})

test('an Idempotency-Key retried on the other replica, or sent to both at once, runs once', async (t) => {
  const redis = await startRedis(t)
  const { apps, runs, open, started } = await replicas(t, redis.url)
  const first = await call(apps[0], 'count', { 'idempotency-key': 'k1' })
  const retry = await call(apps[1], 'count', { 'idempotency-key': 'k1' })
  assert.deepEqual(retry.json(), first.json())
  assert.equal(retry.headers['idempotent-replayed'], 'true')
  assert.equal(runs.count, 1)
  assert.equal((await call(apps[1], 'gate', { 'idempotency-key': 'k1' })).statusCode, 422)
  // Keys are per API key on every replica.
  assert.equal((await call(apps[1], 'count', { 'idempotency-key': 'k1' }, 'key-b')).headers['idempotent-replayed'], undefined)

  const a = call(apps[0], 'gate', { 'idempotency-key': 'k2' })
  await started
  const b = call(apps[1], 'gate', { 'idempotency-key': 'k2' })
  await sleep(100)
  open()
  const [answerA, answerB] = await Promise.all([a, b])
  assert.deepEqual(answerB.json(), answerA.json())
  assert.equal(answerB.headers['idempotent-replayed'], 'true')
  assert.equal(runs.gate, 1)
})

test('in Redis one key\'s flood of kept results and keyed answers never pushes out another key\'s: each key has its own budget there', async (t) => {
  const redis = await startRedis(t)
  const { apps, runs } = await replicas(t, redis.url, { RESULTS_MAX_BYTES_PER_KEY: '300000', IDEMPOTENCY_MAX_BYTES_PER_KEY: '100000' })
  for (const app of apps) {
    app.gateway.registry.register(fixtureTool('wide', { maxResultSizeChars: 100, handler: async () => 'w'.repeat(50_000) }))
    app.gateway.registry.register(fixtureTool('echo', { handler: async (args) => toolResult({ run: ++runs.count, text: args.text ?? null }) }))
  }
  // Redis bounded as docs/operations.md says (maxmemory, volatile-lru), 3 MB above what it holds now: its
  // own eviction, blind to keys, would take b's entries among a's 15 MB without the budgets.
  const admin = new Redis(redis.url)
  t.after(() => { admin.disconnect() })
  const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1])
  await admin.config('SET', 'maxmemory', String(used + 3_000_000))
  await admin.config('SET', 'maxmemory-policy', 'volatile-lru')
  const send = async (app: FastifyInstance, key: string, url: string, payload: object, headers: Record<string, string> = {}) =>
    await app.inject({ method: 'POST', url, payload, headers: { authorization: `Bearer ${key}`, ...headers } })

  const mine = (await send(apps[0], 'key-b', '/dispatch/wide', {})).json()
  assert.match(mine.resultId, /^res_/)
  const answer = (await send(apps[0], 'key-b', '/dispatch/echo', { text: 'b' }, { 'idempotency-key': 'b-1' })).json()
  for (let batch = 0; batch < 5; batch++) {
    const calls = Array.from({ length: 40 }, (_, i) => ({ id: `c${batch}_${i}`, type: 'function', function: { name: 'wide', arguments: '{}' } }))
    assert.equal((await send(apps[batch % 2], 'key-a', '/dispatch', { tool_calls: calls })).statusCode, 200)
  }
  for (let n = 0; n < 1_000; n++) {
    assert.equal((await send(apps[n % 2], 'key-a', '/dispatch/echo', { text: 'a'.repeat(5_000) }, { 'idempotency-key': `a-${n}` })).statusCode, 200)
  }
  const held = async (namespace: string, owner: string) =>
    Number(await admin.hget(`tool-gateway:${namespace}owner-bytes:${createHash('sha256').update(owner).digest('base64url')}`, '#total'))
  assert.ok(await held('result:', 'a') <= 300_000, `a's results take ${await held('result:', 'a')} bytes in Redis`)
  assert.ok(await held('idempotency:', 'a') <= 100_000, `a's answers take ${await held('idempotency:', 'a')} bytes in Redis`)
  assert.equal(Number((/evicted_keys:(\d+)/.exec(await admin.info('stats')))![1]), 0, 'Redis evicted nothing')

  // b reads its result, and retries its call, on the replica that never saw either.
  const read = await apps[1].inject({ url: `/results/${mine.resultId}`, headers: { authorization: 'Bearer key-b' } })
  assert.equal(read.statusCode, 200)
  assert.equal(read.json().content, 'w'.repeat(50_000))
  const runsBefore = runs.count
  const retry = await send(apps[1], 'key-b', '/dispatch/echo', { text: 'b' }, { 'idempotency-key': 'b-1' })
  assert.equal(retry.headers['idempotent-replayed'], 'true')
  assert.deepEqual(retry.json(), answer)
  assert.equal(runs.count, runsBefore, 'b\'s call ran once')
  // a's own oldest went, on every replica's word: its first answer is gone from Redis.
  assert.equal(await admin.exists(`tool-gateway:idempotency:${createHash('sha256').update('a\na-0').digest('base64url')}`), 0)
})

test('Redis down at start: the gateway starts, serves from memory, and /readyz and the log say so', async (t) => {
  const redis = await startRedis(t)
  await redis.kill()
  const before = performance.now()
  const { apps, logs } = await replicas(t, redis.url, { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_MS: '60000' })
  assert.ok(performance.now() - before < 10_000)
  const ready = await apps[0].inject('/readyz')
  assert.equal(ready.statusCode, 200)
  assert.equal(ready.json().redis.connected, false)
  assert.ok(ready.json().redis.degraded.length === 4)
  assert.match(logs[0].text(), /Redis did not answer within 1000 ms at start-up/)
  // Each replica counts on its own: two calls each pass, the third on either is refused.
  const statuses = []
  for (let n = 0; n < 6; n++) statuses.push((await call(apps[n % 2], 'count')).statusCode)
  assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429])
  const kept = await call(apps[0], 'count', { 'idempotency-key': 'local' }, 'key-b')
  assert.equal(kept.statusCode, 200)
  assert.equal((await call(apps[0], 'count', { 'idempotency-key': 'local' }, 'key-b')).headers['idempotent-replayed'], 'true')
  // Back: the replicas connect again on their own.
  await redis.start()
  await until(async () => (await readiness(apps[0])).redis.connected === true && (await readiness(apps[1])).redis.connected === true, 15_000, 'the replicas to reconnect')
})

test('Redis killed mid-run, or hanging: no call fails; the replicas fall back to memory and come back', async (t) => {
  const redis = await startRedis(t)
  const { apps, logs } = await replicas(t, redis.url, { RATE_LIMIT_MAX: '1000000', RATE_LIMIT_WINDOW_MS: '60000', REDIS_COMMAND_TIMEOUT_MS: '200' })
  const statuses = new Map<number, number>()
  let n = 0
  const load = async (until: number): Promise<void> => {
    while (performance.now() < until) {
      const status = (await call(apps[n++ % 2], n % 5 === 0 ? 'long' : 'count', n % 7 === 0 ? { 'idempotency-key': `load-${n}` } : {})).statusCode
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
    }
  }
  const end = performance.now() + 2_000
  const running = Promise.all([load(end), load(end)])
  await sleep(500)
  await redis.kill()
  await running
  assert.deepEqual([...statuses.keys()], [200], `statuses: ${JSON.stringify([...statuses])}`)
  assert.ok(n > 20, `only ${n} calls ran`)
  const ready = await apps[1].inject('/readyz')
  assert.equal(ready.statusCode, 200)
  assert.equal(ready.json().redis.connected, false)
  assert.match(logs[1].text(), /Redis connection lost: serving from memory/)
  assert.match((await apps[1].inject({ url: '/metrics', headers: { authorization: 'Bearer key-a' } })).body, /^gateway_redis_connected 0$/m)

  await redis.start()
  await until(async () => (await readiness(apps[0])).redis.connected === true, 15_000, 'the replica to reconnect')
  // Hanging: connected, but nothing answers. Calls wait at most the command timeout, then go on.
  redis.pause()
  t.after(() => redis.resume())
  const hung = await Promise.all([call(apps[0], 'count'), call(apps[0], 'long'), call(apps[1], 'count', { 'idempotency-key': 'hung' })])
  assert.deepEqual(hung.map((answer) => answer.statusCode), [200, 200, 200])
  assert.equal((await readiness(apps[0])).redis.connected, false)
  redis.resume()
})

async function until (check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms
  while (!await check()) {
    if (performance.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`)
    await sleep(100)
  }
}
