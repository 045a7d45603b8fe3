// The in-memory idempotency records: claims, kept answers, their TTL and their byte budget.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { MemoryRecords } from '../../src/idempotency/memory-records.ts'
import type { Claim, IdempotencyRecord } from '../../src/idempotency/records.ts'

function asClaim (found: Claim | IdempotencyRecord): Claim {
  assert.ok('complete' in found, `expected a claim, got ${JSON.stringify(found)}`)
  return found
}

test('a claimed key is running for the next claim, then holds its answer until the TTL ends', async () => {
  let now = 1_000
  const records = new MemoryRecords({ ttlMs: 100, maxTotalBytes: 10_000, now: () => now })
  const claim = asClaim(await records.claim('k', 'f1'))
  assert.deepEqual(await records.claim('k', 'f2'), { state: 'running', fingerprint: 'f1' })
  await claim.complete({ status: 200, body: '{"a":1}' })
  assert.deepEqual(await records.claim('k', 'f1'), { state: 'done', fingerprint: 'f1', answer: { status: 200, body: '{"a":1}' } })
  now += 100
  asClaim(await records.claim('k', 'f1'))
})

test('a released key can be claimed again, and settled() wakes the waiters of a running key', async () => {
  const records = new MemoryRecords({ ttlMs: 60_000, maxTotalBytes: 10_000 })
  const first = asClaim(await records.claim('k', 'f'))
  const waiting = records.settled('k', new AbortController().signal)
  await first.release()
  assert.equal(await waiting, undefined)
  const second = asClaim(await records.claim('k', 'f'))
  const waitingForAnswer = records.settled('k', new AbortController().signal)
  await second.complete({ status: 504, body: '"late"' })
  assert.deepEqual(await waitingForAnswer, { state: 'done', fingerprint: 'f', answer: { status: 504, body: '"late"' } })
})

test('settled() stops waiting when its signal fires, and the key is still running', async () => {
  const records = new MemoryRecords({ ttlMs: 60_000, maxTotalBytes: 10_000 })
  asClaim(await records.claim('k', 'f'))
  const controller = new AbortController()
  const waiting = records.settled('k', controller.signal)
  controller.abort()
  assert.equal((await waiting)?.state, 'running')
})

test('answers stay within maxTotalBytes: the oldest go first, one larger than the budget is not kept', async () => {
  // Each answer below takes (1 + 1 + 48) × 2 = 100 bytes.
  const records = new MemoryRecords({ ttlMs: 60_000, maxTotalBytes: 250 })
  for (const key of ['a', 'b', 'c']) await asClaim(await records.claim(key, 'f')).complete({ status: 200, body: 'x'.repeat(48) })
  assert.equal(records.totalBytes, 200)
  asClaim(await records.claim('a', 'f'))
  assert.equal((await records.claim('b', 'f') as IdempotencyRecord).state, 'done')
  await asClaim(await records.claim('huge', 'f')).complete({ status: 200, body: 'x'.repeat(1_000) })
  asClaim(await records.claim('huge', 'f'))
  assert.equal(records.totalBytes, 200)
})
