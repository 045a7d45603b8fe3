import assert from 'node:assert/strict'
import test from 'node:test'
import { Pending } from '../../src/dispatch/pending.ts'
import type { StepResult } from '../../src/dispatch/outcome.ts'

const OK: StepResult = { status: 'ok', content: 'x' }

test('Pending: continuations run synchronously when it settles, and at once when it already has', () => {
  const pending = new Pending()
  const seen: string[] = []
  pending.subscribe((result) => seen.push(`first ${result.content}`), () => seen.push('error'))
  assert.equal(seen.length, 0)
  pending.resolve(OK)
  assert.deepEqual(seen, ['first x'])
  pending.subscribe((result) => seen.push(`late ${result.content}`), () => seen.push('error'))
  assert.deepEqual(seen, ['first x', 'late x'])
})

test('Pending: map chains run in the same turn as the answer, in order', () => {
  const pending = new Pending()
  let final: StepResult | undefined
  pending.map((r) => ({ ...r, content: `${r.content}1` })).map((r) => ({ ...r, content: `${r.content}2` }))
    .subscribe((r) => { final = r }, () => assert.fail('no error expected'))
  pending.resolve(OK)
  assert.deepEqual(final, { status: 'ok', content: 'x12' })
})

test('Pending: a throw in map rejects the mapped one; a rejection passes through later maps', async () => {
  const pending = new Pending()
  const failed = pending.map(() => { throw new Error('cap failed') }).map(() => assert.fail('must not run'))
  pending.resolve(OK)
  await assert.rejects(Promise.resolve(failed), /cap failed/)
  const rejected = new Pending()
  rejected.reject(new Error('gone'))
  await assert.rejects(async () => await rejected.map(() => OK), /gone/)
})

test('Pending: settles once; resolving with a promise or another Pending adopts its outcome', async () => {
  const pending = new Pending()
  pending.resolve(OK)
  pending.resolve({ status: 'error', content: 'y' })
  pending.reject(new Error('late'))
  assert.deepEqual(await pending, OK)

  const viaPromise = new Pending()
  viaPromise.resolve(Promise.resolve({ status: 'timeout', content: 't' }))
  assert.equal((await viaPromise).status, 'timeout')

  const inner = new Pending()
  const outer = new Pending()
  outer.resolve(inner)
  let outerResult: StepResult | undefined
  outer.subscribe((r) => { outerResult = r }, () => {})
  inner.resolve(OK)
  assert.equal(outerResult, OK, 'adopting a Pending stays synchronous')

  const viaRejected = new Pending()
  viaRejected.resolve(Promise.reject(new Error('probe failed')))
  await assert.rejects(async () => await viaRejected, /probe failed/)
})

test('Pending: a map returning a promise waits for it', async () => {
  const pending = new Pending()
  const mapped = pending.map(async (r) => ({ ...r, content: `${r.content} after a hook` }))
  pending.resolve(OK)
  assert.deepEqual(await mapped, { status: 'ok', content: 'x after a hook' })
})

test('Pending.of: a Pending as is; a result settled at once; a promise adopted', async () => {
  const pending = new Pending()
  assert.equal(Pending.of(pending), pending)
  let now: StepResult | undefined
  Pending.of(OK).subscribe((r) => { now = r }, () => {})
  assert.equal(now, OK)
  assert.deepEqual(await Pending.of(Promise.resolve(OK)), OK)
})

test('Pending: several waiters all run, in the order they came', () => {
  const pending = new Pending()
  const order: string[] = []
  pending.subscribe(() => order.push('a'), () => {})
  pending.map((r) => { order.push('b'); return r })
  pending.subscribe(() => order.push('c'), () => {})
  pending.resolve(OK)
  assert.deepEqual(order, ['a', 'b', 'c'])
})
