// withTimeout: the work's outcome when it settles first, onTimeout's when the time runs out, and a
// timer that neither outlives the work nor (with unref) holds the process open.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { withTimeout } from '../../src/shared/timers.ts'

const MODULE = fileURLToPath(new URL('../../src/shared/timers.ts', import.meta.url))

test('withTimeout: the work settling first wins, with its value or its error', async () => {
  assert.equal(await withTimeout(Promise.resolve('done'), 1_000, () => 'late'), 'done')
  await assert.rejects(withTimeout(Promise.reject(new Error('boom')), 1_000, () => 'late'), /boom/)
})

test('withTimeout: past the deadline, onTimeout answers or, by throwing, rejects', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const never = new Promise<string>(() => {})
  const answered = withTimeout(never, 50, () => 'timed out')
  const refused = withTimeout(never, 50, () => { throw new Error('took too long') })
  t.mock.timers.tick(49)
  let settled = false
  answered.finally(() => { settled = true }).catch(() => {})
  await Promise.resolve()
  assert.equal(settled, false, 'nothing before the deadline')
  t.mock.timers.tick(1)
  assert.equal(await answered, 'timed out')
  await assert.rejects(refused, /took too long/)
})

test('withTimeout: the late outcome of work that lost is dropped, and onTimeout runs once at most', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  let calls = 0
  const { promise: work, reject } = Promise.withResolvers<string>()
  const raced = withTimeout(work, 10, () => { calls++; return 'timed out' })
  t.mock.timers.tick(10)
  assert.equal(await raced, 'timed out')
  reject(new Error('late failure'))
  await new Promise((resolve) => setImmediate(resolve))
  const fast = withTimeout(Promise.resolve('fast'), 10, () => { calls++; return 'timed out' })
  assert.equal(await fast, 'fast')
  t.mock.timers.tick(100)
  assert.equal(calls, 1)
})

function runScript (source: string): { status: number | null, ms: number } {
  const started = Date.now()
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', `import { withTimeout } from ${JSON.stringify(MODULE)}\n${source}`], { timeout: 30_000 })
  return { status: child.status, ms: Date.now() - started }
}

test('withTimeout: a referenced timer holds the process until the deadline; unref lets it exit; a settled wait holds nothing', () => {
  const held = runScript('withTimeout(new Promise(() => {}), 400, () => "t").then((v) => { if (v !== "t") process.exit(3) })')
  assert.equal(held.status, 0)
  assert.ok(held.ms >= 390, `a referenced timer held the process ${held.ms} ms`)
  const released = runScript('withTimeout(new Promise(() => {}), 20_000, () => "t", { unref: true })')
  assert.equal(released.status, 0)
  assert.ok(released.ms < 10_000, `an unref'd timer held the process ${released.ms} ms`)
  const cleared = runScript('await withTimeout(Promise.resolve(1), 20_000, () => 0)')
  assert.equal(cleared.status, 0)
  assert.ok(cleared.ms < 10_000, `a settled wait held the process ${cleared.ms} ms`)
})
