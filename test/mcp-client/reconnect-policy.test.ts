// The reconnect policy on its own: back-off, jitter, the circuit breaker and the stability rule, on a hand-moved clock.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ReconnectPolicy, type ReconnectTuning } from '../../src/mcp-client/reconnect-policy.ts'
import { DEFAULT_TUNING } from '../../src/mcp-client/tuning.ts'
import { ManualClock } from './helpers/clock.ts'

function policy (tuning: Partial<ReconnectTuning> = {}, clock = new ManualClock()): { policy: ReconnectPolicy, clock: ManualClock } {
  return { policy: new ReconnectPolicy({ ...DEFAULT_TUNING, ...tuning }, clock), clock }
}

test('back-off doubles from the base, is capped, and the jitter applies after the cap', () => {
  const { policy: p, clock } = policy({ failureThreshold: 100 })
  clock.randomValue = 0.5 // no jitter
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => p.backoff(n)), [500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000])
  clock.randomValue = 0 // × 0.8
  assert.equal(p.backoff(1), 400)
  clock.randomValue = 0.75 // × 1.1
  assert.equal(p.backoff(20), 33_000)
  assert.equal(p.backoff(0), 550, 'no failure yet still waits the base')
})

test('each counted failure plans a longer wait, from the time of the failure', () => {
  const { policy: p, clock } = policy({ failureThreshold: 100 })
  clock.advance(1_000)
  assert.deepEqual(p.failed(true), { state: 'reconnecting', delayMs: 500 })
  assert.equal(p.nextAttemptAt, 1_500)
  assert.equal(p.secondsToNextAttempt(), 1)
  assert.deepEqual(p.failed(true), { state: 'reconnecting', delayMs: 1000 })
  assert.equal(p.failures, 2)
  p.attemptStarted()
  assert.equal(p.nextAttemptAt, undefined)
  assert.equal(p.secondsToNextAttempt(), 0)
})

test('the threshold opens the circuit; a failed half-open probe opens it again with one more failure', () => {
  const { policy: p, clock } = policy()
  assert.equal(p.failed(true).state, 'reconnecting')
  assert.equal(p.failed(true).state, 'reconnecting')
  assert.deepEqual(p.failed(true), { state: 'circuit_open', delayMs: 60_000 })
  assert.equal(p.failures, 3)
  clock.advance(59_001)
  assert.equal(p.secondsToNextAttempt(), 1)
  clock.advance(999)
  p.attemptStarted() // the half-open probe
  assert.deepEqual(p.failed(true), { state: 'circuit_open', delayMs: 60_000 })
  assert.equal(p.failures, 4)
})

test('a loss after a stable connection starts over; a crash right after connecting counts', () => {
  const { policy: p } = policy({ stableMs: 10_000 })
  p.failed(true)
  p.failed(true)
  p.connected()
  assert.equal(p.failures, 2, 'connecting alone proves nothing while stability is tracked')
  assert.equal(p.lossCounts(9_999), true)
  assert.equal(p.lossCounts(10_000), false)
  assert.deepEqual(p.failed(p.lossCounts(10_000)), { state: 'reconnecting', delayMs: 500 })
  assert.equal(p.failures, 0)
})

test('with stability tracking off, connecting resets the count and no loss counts', () => {
  const { policy: p } = policy({ stableMs: 0 })
  p.failed(true)
  p.failed(true)
  p.connected()
  assert.equal(p.failures, 0)
  assert.equal(p.lossCounts(1), false)
})
