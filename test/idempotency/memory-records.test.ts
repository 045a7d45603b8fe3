// The in-memory idempotency records: claims, kept answers, their TTL and their byte budgets, the
// store's and each owner's.
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
  const claim = asClaim(await records.claim('k', 'f1', 'alice'))
  assert.deepEqual(await records.claim('k', 'f2', 'alice'), { state: 'running', fingerprint: 'f1' })
  await claim.complete({ status: 200, body: '{"a":1}' })
  assert.deepEqual(await records.claim('k', 'f1', 'alice'), { state: 'done', fingerprint: 'f1', answer: { status: 200, body: '{"a":1}' } })
  now += 100
  asClaim(await records.claim('k', 'f1', 'alice'))
})

test('a released key can be claimed again, and settled() wakes the waiters of a running key', async () => {
  const records = new MemoryRecords({ ttlMs: 60_000, maxTotalBytes: 10_000 })
  const first = asClaim(await records.claim('k', 'f', 'alice'))
  const waiting = records.settled('k', new AbortController().signal)
  await first.release()
  assert.equal(await waiting, undefined)
  const second = asClaim(await records.claim('k', 'f', 'alice'))
  const waitingForAnswer = records.settled('k', new AbortController().signal)
  await second.complete({ status: 504, body: '"late"' })
  assert.deepEqual(await waitingForAnswer, { state: 'done', fingerprint: 'f', answer: { status: 504, body: '"late"' } })
})

test('settled() stops waiting when its signal fires, and the key is still running', async () => {
  const records = new MemoryRecords({ ttlMs: 60_000, maxTotalBytes: 10_000 })
  asClaim(await records.claim('k', 'f', 'alice'))
  const controller = new AbortController()
  const waiting = records.settled('k', controller.signal)
  controller.abort()
  assert.equal((await waiting)?.state, 'running')
})

test('answers stay within maxTotalBytes: the oldest go first, one larger than the budget is not kept', async () => {
  // Each answer below takes (1 + 1 + 48) × 2 = 100 bytes.
  const records = new MemoryRecords({ ttlMs: 60_000, maxTotalBytes: 250, maxBytesPerKey: 250 })
  for (const key of ['a', 'b', 'c']) await asClaim(await records.claim(key, 'f', 'alice')).complete({ status: 200, body: 'x'.repeat(48) })
  assert.equal(records.totalBytes, 200)
  asClaim(await records.claim('a', 'f', 'alice'))
  assert.equal((await records.claim('b', 'f', 'alice') as IdempotencyRecord).state, 'done')
  await asClaim(await records.claim('huge', 'f', 'alice')).complete({ status: 200, body: 'x'.repeat(1_000) })
  asClaim(await records.claim('huge', 'f', 'alice'))
  assert.equal(records.totalBytes, 200)
})

test('one owner\'s flood of answers evicts its own oldest, never another owner\'s', async () => {
  // Each answer below takes (1 to 4 + 1 + 48) × 2 bytes, about 100.
  const records = new MemoryRecords({ ttlMs: 60_000, maxTotalBytes: 10_000, maxBytesPerKey: 1_000 })
  await asClaim(await records.claim('b1', 'f', 'bob')).complete({ status: 200, body: 'x'.repeat(48) })
  for (let n = 0; n < 1_000; n++) await asClaim(await records.claim(`a${n}`, 'f', 'alice')).complete({ status: 200, body: 'x'.repeat(48) })
  assert.equal((await records.claim('b1', 'f', 'bob') as IdempotencyRecord).state, 'done', 'bob\'s answer is still there')
  assert.ok(records.bytesOf('alice') <= 1_000, `${records.bytesOf('alice')} bytes`)
  assert.equal((await records.claim('a999', 'f', 'alice') as IdempotencyRecord).state, 'done', 'alice keeps her newest')
  asClaim(await records.claim('a0', 'f', 'alice'))
})

test('past the total the owner holding the most loses its oldest; one answer over an owner\'s budget is not kept', async () => {
  const records = new MemoryRecords({ ttlMs: 60_000, maxTotalBytes: 1_000, maxBytesPerKey: 600 })
  const answer = { status: 200, body: 'x'.repeat(48) }
  await asClaim(await records.claim('c', 'f', 'carol')).complete(answer)
  for (let n = 0; n < 20; n++) {
    await asClaim(await records.claim(`a${n}`, 'f', 'alice')).complete(answer)
    await asClaim(await records.claim(`b${n}`, 'f', 'bob')).complete(answer)
    assert.ok(records.totalBytes <= 1_000, `${records.totalBytes} bytes`)
  }
  assert.equal((await records.claim('c', 'f', 'carol') as IdempotencyRecord).state, 'done', 'carol, under her share, lost nothing')
  await asClaim(await records.claim('huge', 'f', 'carol')).complete({ status: 200, body: 'x'.repeat(300) })
  asClaim(await records.claim('huge', 'f', 'carol'))
})
