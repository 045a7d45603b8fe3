// When list_changed notifications lead to a refresh: one per burst, never two at once, starts at
// least minIntervalMs apart, and a notification that comes during a refresh is owed one more.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { RefreshScheduler } from '../../src/mcp-client/refresh-scheduler.ts'
import { ManualClock } from './helpers/clock.ts'

function scheduler (clock: ManualClock): { scheduler: RefreshScheduler, starts: number[], finish: () => void } {
  const starts: number[] = []
  let release: (() => void) | undefined
  const s = new RefreshScheduler({
    clock,
    debounceMs: 100,
    minIntervalMs: 1000,
    run: () => {
      starts.push(clock.now())
      return new Promise<void>((resolve) => { release = resolve })
    }
  })
  return { scheduler: s, starts, finish: () => release?.() }
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

test('a burst costs one refresh, after the debounce', () => {
  const clock = new ManualClock()
  const { scheduler: s, starts } = scheduler(clock)
  for (let i = 0; i < 50; i++) s.request()
  clock.advance(99)
  assert.deepEqual(starts, [])
  clock.advance(1)
  assert.deepEqual(starts, [100])
})

test('a steady stream of notifications refreshes once per interval, never starves, never overlaps', async () => {
  const clock = new ManualClock()
  const { scheduler: s, starts, finish } = scheduler(clock)
  for (let t = 0; t < 5000; t += 50) {
    s.request()
    clock.advance(50)
    if (t % 200 === 0) {
      finish()
      await settle()
    }
  }
  assert.ok(starts.length >= 4 && starts.length <= 6, `refreshes at ${starts.join(', ')}`)
  for (let i = 1; i < starts.length; i++) assert.ok(starts[i] - starts[i - 1] >= 1000, `${starts[i - 1]} then ${starts[i]}`)
})

test('a notification during a refresh is owed one more, run when the refresh is done', async () => {
  const clock = new ManualClock()
  const { scheduler: s, starts, finish } = scheduler(clock)
  s.request()
  clock.advance(100)
  s.request()
  s.request()
  clock.advance(5000)
  assert.deepEqual(starts, [100], 'not while the first runs')
  finish()
  await settle()
  clock.advance(100)
  assert.deepEqual(starts, [100, 5200])
  finish()
  await settle()
  clock.advance(10_000)
  assert.deepEqual(starts, [100, 5200], 'nothing more was owed')
})

test('dispose cancels what was scheduled', () => {
  const clock = new ManualClock()
  const { scheduler: s, starts } = scheduler(clock)
  s.request()
  s.dispose()
  s.request()
  clock.advance(10_000)
  assert.deepEqual(starts, [])
})
