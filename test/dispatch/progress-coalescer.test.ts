import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { ProgressCoalescer } from '../../src/dispatch/call/progress-coalescer.ts'
import type { ToolProgress } from '../../src/registry/types.ts'

test('a burst goes at once; past it the rest of an interval collapse into its latest, sent when it ends', async () => {
  const sent: ToolProgress[] = []
  const coalescer = new ProgressCoalescer((update) => sent.push(update), 50, 3)
  for (let i = 1; i <= 1_000; i++) coalescer.report({ progress: i, total: 1_000 })
  assert.deepEqual(sent.map((u) => u.progress), [1, 2, 3], 'the burst, then held')
  await sleep(80)
  assert.deepEqual(sent.map((u) => u.progress), [1, 2, 3, 1_000], 'the latest of the interval, not every one')
  coalescer.report({ progress: 1_001, message: 'later' })
  assert.equal(sent.length, 4, 'the burst is spent and the interval not over: held')
  await sleep(80)
  assert.deepEqual(sent.at(-1), { progress: 1_001, message: 'later' })
  coalescer.close()
})

test('a tool with a few steps is passed on step by step', () => {
  const sent: ToolProgress[] = []
  const coalescer = new ProgressCoalescer((update) => sent.push(update))
  for (let i = 0; i <= 2; i++) coalescer.report({ progress: i * 50, total: 100, message: `step ${i}` })
  coalescer.close()
  assert.deepEqual(sent.map((u) => u.message), ['step 0', 'step 1', 'step 2'])
})

test('the rate holds over time: a steady flood gets about one report per interval after the burst', async () => {
  const sent: ToolProgress[] = []
  const coalescer = new ProgressCoalescer((update) => sent.push(update), 20, 2)
  const began = performance.now()
  let i = 0
  while (performance.now() - began < 200) {
    coalescer.report({ progress: ++i })
    await sleep(1)
  }
  coalescer.close()
  const allowed = 2 + Math.ceil((performance.now() - began) / 20) + 1
  assert.ok(sent.length <= allowed, `${sent.length} sent for ${i} reports (at most ${allowed})`)
  assert.ok(sent.length >= 4, `some were sent while it lasted: ${sent.length}`)
  assert.equal(sent.at(-1)?.progress, i, 'the last report reaches the client before the answer')
})

test('closed: the report still waiting goes out once, and nothing after', async () => {
  const sent: ToolProgress[] = []
  const coalescer = new ProgressCoalescer((update) => sent.push(update), 30, 1)
  coalescer.report({ progress: 1 })
  coalescer.report({ progress: 2 })
  coalescer.report({ progress: 3 })
  coalescer.close()
  coalescer.close()
  coalescer.report({ progress: 4 })
  await sleep(60)
  assert.deepEqual(sent.map((u) => u.progress), [1, 3])
})
