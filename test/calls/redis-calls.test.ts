// Two books of detached calls sharing a real redis-server, as two replicas do: a call started on one
// is read, waited on, cancelled and answered from the other; a replica that stops renewing its
// lease (its link to Redis cut, as when its process dies) leaves a call that reads `lost` on the
// other once the lease lapses; a call id is never taken twice; an owner's outcomes stay within
// their budget in Redis.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import type { CallAnswer, HeldCall } from '../../src/calls/call-record.ts'
import { DetachedCalls } from '../../src/calls/detached-calls.ts'
import { MemoryCallStore } from '../../src/calls/memory-call-store.ts'
import { RedisCallStore } from '../../src/calls/redis-call-store.ts'
import { RedisLink } from '../../src/shared-state/redis-link.ts'
import { captureLogger } from '../helpers/logger.ts'
import { startRedis, type TestRedis } from '../helpers/redis-server.ts'

interface T { after: (fn: () => Promise<void> | void) => void }

const LEASE_MS = 600
const ENVELOPE = { tool: 'slow', callId: 'c', ok: true, status: 'ok', content: 'done', truncated: false, originalLength: 4, durationMs: 1 }

interface Replica { book: DetachedCalls, link: RedisLink }

async function replica (t: T, redis: TestRedis, options: { maxBytesPerCaller?: number } = {}): Promise<Replica> {
  const { logger } = captureLogger('warn')
  const link = await RedisLink.open({ url: redis.url, keyPrefix: 'test-calls:', commandTimeoutMs: 2_000, connectTimeoutMs: 5_000 }, logger)
  const maxBytesPerCaller = options.maxBytesPerCaller ?? 1_000_000
  const book = new DetachedCalls({
    memory: new MemoryCallStore({ ttlMs: 60_000, maxTotalBytes: 4_000_000, maxBytesPerCaller }),
    shared: new RedisCallStore(link, { ttlMs: 60_000, leaseMs: LEASE_MS, maxBytesPerCaller, logger }),
    ttlMs: 60_000,
    answerTimeoutMs: 10_000,
    maxRunningPerCaller: 8,
    leaseMs: LEASE_MS,
    logger
  })
  t.after(async () => {
    await book.close()
    await link.close()
  })
  return { book, link }
}

/** A run that ends when its signal fires (answering the cancelled envelope) or when the test says. */
function controlled (): { run: (held: HeldCall) => Promise<CallAnswer>, held: Promise<HeldCall>, finish: (answer: CallAnswer) => void } {
  const held = Promise.withResolvers<HeldCall>()
  const done = Promise.withResolvers<CallAnswer>()
  return {
    run: async (call) => {
      held.resolve(call)
      call.signal.addEventListener('abort', () => done.resolve({ status: 499, payload: { ...ENVELOPE, ok: false, status: 'cancelled', reason: String(call.signal.reason) } }), { once: true })
      return await done.promise
    },
    held: held.promise,
    finish: (answer) => done.resolve(answer)
  }
}

test('a call started on one replica is read, followed and ended from the other', async (t) => {
  const redis = await startRedis(t)
  const [a, b] = [await replica(t, redis), await replica(t, redis)]
  const { run, held, finish } = controlled()
  const view = await a.book.start({ owner: 'alice', tool: 'slow' }, run)
  // Recorded before start() resolved: the other replica finds it at once.
  const seen = await b.book.get('alice', view.callId)
  assert.equal(seen?.status, 'running')
  assert.equal(await b.book.get('bob', view.callId), undefined)

  // A change on A wakes a wait on B (pub/sub), well before the wait's time.
  const waiting = b.book.wait('alice', view.callId, 10_000)
  const began = performance.now()
  ;(await held).progress({ progress: 1, total: 2, message: 'half' })
  const changed = await waiting
  assert.ok(performance.now() - began < 2_000, `the wait took ${performance.now() - began} ms`)
  assert.deepEqual(changed?.progress, { progress: 1, total: 2, message: 'half' })

  finish({ status: 200, payload: ENVELOPE })
  const ended = await b.book.wait('alice', view.callId, 5_000, changed?.updatedAt)
  assert.equal(ended?.status, 'completed')
  assert.deepEqual(ended?.answer, { status: 200, payload: ENVELOPE })
  // The lease lapses after the end: the call still reads completed, not lost.
  await sleep(LEASE_MS * 2)
  assert.equal((await b.book.get('alice', view.callId))?.status, 'completed')
})

test('a cancel from the other replica fires the signal where the call runs', async (t) => {
  const redis = await startRedis(t)
  const [a, b] = [await replica(t, redis), await replica(t, redis)]
  const { run, held } = controlled()
  const view = await a.book.start({ owner: 'alice', tool: 'slow' }, run)
  const signal = (await held).signal
  assert.equal((await b.book.cancel('alice', view.callId))?.status, 'running')
  for (let i = 0; i < 200 && !signal.aborted; i++) await sleep(10)
  assert.equal(signal.aborted, true, 'heard within 2 s')
  assert.match(String(signal.reason), /cancelled by its caller/)
  const ended = await b.book.wait('alice', view.callId, 5_000)
  assert.equal(ended?.status, 'cancelled')
})

test('answers given on the other replica reach the question where the call runs, checked there first', async (t) => {
  const redis = await startRedis(t)
  const [a, b] = [await replica(t, redis), await replica(t, redis)]
  const answered = Promise.withResolvers<unknown>()
  const view = await a.book.start({ owner: 'alice', tool: 'deploy' }, async (held) => {
    answered.resolve(await held.ask({ confirm: { method: 'elicitation/create', params: { message: 'Go?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } } }, new AbortController().signal))
    return { status: 200, payload: ENVELOPE }
  })
  let asking = await b.book.get('alice', view.callId)
  for (let i = 0; i < 100 && asking?.status !== 'input_required'; i++) asking = await b.book.wait('alice', view.callId, 100, asking?.updatedAt)
  assert.equal(asking?.status, 'input_required')
  await assert.rejects(b.book.answer('alice', view.callId, { confirm: { action: 'accept', content: { ok: 'yes' } } }), /inputResponses\.confirm\.content\/ok/)
  await b.book.answer('alice', view.callId, { confirm: { action: 'accept', content: { ok: true } } })
  assert.deepEqual(await answered.promise, { confirm: { action: 'accept', content: { ok: true } } })
  // A second answer finds nothing waiting.
  await assert.rejects(b.book.answer('alice', view.callId, { confirm: { action: 'decline' } }), /inputResponses/)
  assert.equal((await b.book.wait('alice', view.callId, 5_000))?.status, 'completed')
})

test('a replica that stops renewing its lease leaves a call that reads lost, once, the same on every replica', async (t) => {
  const redis = await startRedis(t)
  const [a, b] = [await replica(t, redis), await replica(t, redis)]
  const { run } = controlled()
  const view = await a.book.start({ owner: 'alice', tool: 'slow' }, run)
  await sleep(LEASE_MS)
  assert.equal((await b.book.get('alice', view.callId))?.status, 'running', 'renewed while its replica lives')
  // Its link cut, as when the process dies: no heartbeat reaches Redis any more.
  a.link.client.disconnect()
  const began = performance.now()
  let lost = await b.book.get('alice', view.callId)
  while (lost?.status === 'running' && performance.now() - began < 5_000) lost = await b.book.wait('alice', view.callId, 2_000, lost.updatedAt)
  assert.equal(lost?.status, 'lost')
  assert.match(lost?.error ?? '', /the replica that ran it stopped/)
  const third = await replica(t, redis)
  const again = await third.book.get('alice', view.callId)
  // expiresAt is read from the key's TTL: the same within the time between the reads.
  assert.deepEqual({ ...again, expiresAt: undefined }, { ...lost, expiresAt: undefined })
  assert.ok(Math.abs(Date.parse(again?.expiresAt ?? '') - Date.parse(lost?.expiresAt ?? '')) < 2_000)
})

test('a call id is taken once across replicas; each owner\'s outcomes stay within its budget in Redis', async (t) => {
  const redis = await startRedis(t)
  const [a, b] = [await replica(t, redis, { maxBytesPerCaller: 3_000 }), await replica(t, redis, { maxBytesPerCaller: 3_000 })]
  const held = await a.book.adopt({ owner: 'alice', tool: 'deploy', callId: 'call_adopted' }, () => {})
  await assert.rejects(b.book.adopt({ owner: 'bob', tool: 'deploy', callId: 'call_adopted' }, () => {}), /call id call_adopted is in use/)
  await held.settle({ status: 200, payload: ENVELOPE })

  const big = { ...ENVELOPE, content: 'x'.repeat(900) }
  const ids: string[] = []
  for (const book of [a.book, b.book, a.book]) {
    const view = await book.start({ owner: 'carol', tool: 'quick' }, async () => ({ status: 200, payload: big }))
    assert.equal((await book.wait('carol', view.callId, 5_000))?.status, 'completed')
    ids.push(view.callId)
  }
  assert.equal(await b.book.get('carol', ids[0]), undefined, 'the oldest outcome made room, whichever replica kept it')
  assert.equal((await b.book.get('carol', ids[2]))?.status, 'completed')
})
