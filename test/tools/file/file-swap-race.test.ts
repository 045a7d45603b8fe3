// The file a call names swapped, over and over, between a plain file and a symbolic link to a
// secret outside the workspace, while read_file and write_file run: the quick way opens first and
// checks what it opened (open-beneath.ts, atomic-write.ts), so no call may return the secret or
// change anything outside, whichever state it meets at whichever moment. And the workspace root,
// resolved once, is found again when it was removed meanwhile.
import assert from 'node:assert/strict'
import { readdir, readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { Worker } from 'node:worker_threads'
import { fileFixture, SECRET } from './setup.ts'

// In its own thread, so the swaps go on while the gateway's thread awaits its file-system calls.
const SWAPPER = `
const { workerData } = require('node:worker_threads')
const { renameSync, symlinkSync, unlinkSync, writeFileSync } = require('node:fs')
const { file, parked, secret, stop } = workerData
const flag = new Int32Array(stop)
const hold = () => { const until = process.hrtime.bigint() + 100_000n; while (process.hrtime.bigint() < until); }
while (Atomics.load(flag, 0) === 0) {
  try { renameSync(file, parked) } catch { writeFileSync(parked, 'inside\\n') }
  try { symlinkSync(secret, file) } catch {}
  hold()
  // A write may have replaced the link by its file meanwhile: whatever is there goes.
  try { unlinkSync(file) } catch {}
  renameSync(parked, file)
  hold()
}
`

test('a file swapped for a link to an outside secret during reads and writes: nothing outside is read or changed', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'f.txt': 'inside\n' })
  const secret = join(fx.outside, 'secret.txt')
  const stop = new SharedArrayBuffer(4)
  const swapper = new Worker(SWAPPER, { eval: true, workerData: { file: join(fx.ws, 'f.txt'), parked: join(fx.ws, 'parked'), secret, stop } })
  const stopped = new Promise((resolve) => swapper.once('exit', resolve))
  const leaks: string[] = []
  let readsSeenInside = 0
  try {
    const until = Date.now() + 2000
    while (Date.now() < until) {
      const outcomes = await Promise.all([
        fx.h.call('read_file', { path: 'f.txt' }),
        fx.h.call('read_file', { path: 'f.txt' }),
        fx.h.call('read_file', { path: 'f.txt' }),
        fx.h.call('read_file', { path: 'f.txt' }),
        fx.h.call('write_file', { path: 'f.txt', content: 'inside\n' })
      ])
      for (const outcome of outcomes) if (outcome.content.includes('TOP SECRET')) leaks.push(outcome.content)
      readsSeenInside += outcomes.filter((outcome) => outcome.content.includes('1|inside')).length
    }
  } finally {
    Atomics.store(new Int32Array(stop), 0, 1)
    await stopped
  }
  assert.deepEqual(leaks, [], 'a call returned the outside secret')
  assert.ok(readsSeenInside > 0, 'no read ever met the plain file: the test did not exercise the race')
  assert.equal(await readFile(secret, 'utf8'), SECRET, 'the outside file was changed')
  assert.equal((await stat(secret)).nlink, 1)
  assert.deepEqual(await readdir(fx.outside), ['secret.txt'], 'something was created outside')
})

test('a workspace root removed while the gateway runs: reads say the file is missing, the next write creates it again', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'a.txt': 'a\n' })
  assert.equal((await fx.json('read_file', { path: 'a.txt' })).content, '1|a')
  await rm(fx.ws, { recursive: true })
  const missing = await fx.h.call('read_file', { path: 'a.txt' })
  assert.equal(missing.status, 'error', missing.content)
  assert.match(missing.content, /File not found: \\"a.txt\\"/)
  assert.equal((await fx.h.call('write_file', { path: 'b.txt', content: 'b\n' })).status, 'ok')
  assert.equal(await readFile(join(fx.ws, 'b.txt'), 'utf8'), 'b\n')
  assert.equal((await fx.json('read_file', { path: 'b.txt' })).content, '1|b')
})
