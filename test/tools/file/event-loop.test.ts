// Work whose cost grows with the input must not freeze the gateway: while a file tool chews on a
// pathological glob, an edit whose text is not found in a large file, or a long diff whose last hunk
// fails, timers keep firing (the event loop is never blocked long) and the call's deadline holds.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { DispatchOutcome } from '../../../src/dispatch/call/outcome.ts'
import { fileFixture, withLimits } from './setup.ts'

// Generous: a loaded machine may delay a timer, but not by this much; the unfixed code blocks for seconds.
const MAX_LAG_MS = 500

/** Runs `work` while a 10 ms interval measures how late it fires; the worst lateness is the blocking. */
async function measured (work: () => Promise<DispatchOutcome>): Promise<{ outcome: DispatchOutcome, lagMs: number, elapsedMs: number }> {
  let last = performance.now()
  let lagMs = 0
  const timer = setInterval(() => {
    const now = performance.now()
    lagMs = Math.max(lagMs, now - last - 10)
    last = now
  }, 10)
  const started = performance.now()
  try {
    const outcome = await work()
    const elapsedMs = performance.now() - started
    // Let an overdue tick fire: a block that ended just now is only measured by the tick after it.
    await new Promise((resolve) => setTimeout(resolve, 30))
    return { outcome, lagMs, elapsedMs }
  } finally {
    clearInterval(timer)
  }
}

// A name of 150 'a's against `*a*a*a*a*b`: picomatch's regular expression backtracks for seconds.
const LONG_NAME = 'a'.repeat(150)
const SLOW_GLOB = '*a*a*a*a*b'

test('a glob that backtracks does not block the event loop; the search deadline stops it', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ [LONG_NAME]: 'x\n' })
  withLimits(t, { searchDeadlineMs: 1000 })
  for (const args of [{ target: 'files', pattern: SLOW_GLOB }, { pattern: 'x', file_glob: SLOW_GLOB }]) {
    const { outcome, lagMs } = await measured(() => fx.h.call('search_files', args, { timeoutMs: 20_000 }))
    assert.ok(lagMs < MAX_LAG_MS, `event loop blocked ${Math.round(lagMs)} ms by ${JSON.stringify(args)}`)
    assert.equal(outcome.status, 'ok', outcome.content)
    const result = JSON.parse(outcome.content) as Record<string, unknown>
    assert.equal(result.truncated, true)
    assert.match(result.truncated_reason as string, /1000 ms time limit was reached/)
  }
})

test('a glob that backtracks ends at the call deadline (504), not when the matching would', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ [LONG_NAME]: 'x\n' })
  const { outcome, lagMs, elapsedMs } = await measured(() => fx.h.call('search_files', { target: 'files', pattern: SLOW_GLOB }, { timeoutMs: 1000 }))
  assert.ok(lagMs < MAX_LAG_MS, `event loop blocked ${Math.round(lagMs)} ms`)
  assert.equal(outcome.status, 'timeout', outcome.content)
  assert.ok(elapsedMs < 5000, `answered after ${Math.round(elapsedMs)} ms`)
})

// 400 000 lines of "a", and 4000 of them followed by "b": the old text is nowhere, and looking for
// the closest lines compares every start with thousands of lines.
const MANY_LINES = 'a\n'.repeat(400_000)
const NOT_THERE = 'a\n'.repeat(4000) + 'b\n'

test('patch: text not found in a large file answers without blocking the event loop', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'big.txt': MANY_LINES })
  const { outcome, lagMs } = await measured(() => fx.h.call('patch', { path: 'big.txt', old_string: NOT_THERE, new_string: 'c' }, { timeoutMs: 20_000 }))
  assert.ok(lagMs < MAX_LAG_MS, `event loop blocked ${Math.round(lagMs)} ms`)
  assert.equal(outcome.status, 'error', outcome.content)
  assert.match(outcome.content, /old_string was not found in \\"big.txt\\"; nothing was changed/)
})

test('patch: the deadline holds while the closest lines of a missing text are searched', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'big.txt': MANY_LINES })
  const { outcome, lagMs, elapsedMs } = await measured(() => fx.h.call('patch', { path: 'big.txt', old_string: NOT_THERE, new_string: 'c' }, { timeoutMs: 700 }))
  assert.ok(lagMs < MAX_LAG_MS, `event loop blocked ${Math.round(lagMs)} ms`)
  assert.equal(outcome.status, 'timeout', outcome.content)
  assert.ok(elapsedMs < 5000, `answered after ${Math.round(elapsedMs)} ms`)
})

test('patch: a diff of many hunks whose last fails answers without blocking the event loop', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'big.txt': 'a\n'.repeat(200_000) })
  const hunks: string[] = []
  for (let i = 0; i < 300; i++) hunks.push(`@@ -${i * 10 + 1},1 +${i * 10 + 1},1 @@\n-a\n+c\n`)
  hunks.push('@@ -3500,1 +3500,1 @@\n-zzz\n+c\n')
  const patch = `--- big.txt\n+++ big.txt\n${hunks.join('')}`
  const { outcome, lagMs } = await measured(() => fx.h.call('patch', { mode: 'patch', patch }, { timeoutMs: 20_000 }))
  assert.ok(lagMs < MAX_LAG_MS, `event loop blocked ${Math.round(lagMs)} ms`)
  assert.equal(outcome.status, 'error', outcome.content)
  assert.match(outcome.content, /Hunk 301 of 301 \(@@ -3500,1 \+3500,1 @@\) does not apply/)
})

test('a glob nested deeply enough to take picomatch seconds to compile is refused at once, naming the bound', async (t) => {
  const fx = await fileFixture(t)
  const nested = '*('.repeat(1000) + ')'.repeat(1000)
  for (const args of [{ target: 'files', pattern: nested }, { pattern: 'x', file_glob: nested }]) {
    const { outcome, lagMs } = await measured(() => fx.h.call('search_files', args, { timeoutMs: 20_000 }))
    assert.ok(lagMs < MAX_LAG_MS, `event loop blocked ${Math.round(lagMs)} ms`)
    assert.equal(outcome.status, 'error', outcome.content)
    assert.match(outcome.content, /The glob is 3000 characters long; the limit is 1000/)
  }
  // Short but nested past the bound: refused too, before picomatch sees it.
  const deep = await fx.h.call('search_files', { target: 'files', pattern: '*('.repeat(9) + 'a' + ')'.repeat(9) })
  assert.match(deep.content, /The glob nests groups 9 levels deep; the limit is 8/)
})
