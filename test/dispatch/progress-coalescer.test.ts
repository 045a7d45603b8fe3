import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { ProgressCoalescer } from '../../src/dispatch/progress-coalescer.ts'
import type { ToolProgress } from '../../src/registry/types.ts'

test('the first report goes at once; the rest of an interval collapse into its latest, sent when it ends', async () => {
  const sent: ToolProgress[] = []
  const coalescer = new ProgressCoalescer((update) => sent.push(update), 50)
  for (let i = 1; i <= 1_000; i++) coalescer.report({ progress: i, total: 1_000 })
  assert.deepEqual(sent, [{ progress: 1, total: 1_000 }])
  await sleep(80)
  assert.deepEqual(sent.map((u) => u.progress), [1, 1_000], 'the latest of the interval, not every one')
  coalescer.report({ progress: 1_001, message: 'later' })
  assert.equal(sent.length, 2, 'within an interval of the last send: held')
  await sleep(80)
  assert.deepEqual(sent.at(-1), { progress: 1_001, message: 'later' })
  coalescer.close()
})

test('closed: what waits is dropped and nothing more is sent', async () => {
  const sent: ToolProgress[] = []
  const coalescer = new ProgressCoalescer((update) => sent.push(update), 30)
  coalescer.report({ progress: 1 })
  coalescer.report({ progress: 2 })
  coalescer.close()
  coalescer.report({ progress: 3 })
  await sleep(60)
  assert.deepEqual(sent.map((u) => u.progress), [1])
})
