// A folder of the workspace swapped for a symbolic link to an outside folder, over and over, while
// the file tools run: the check of a path and its use are separate steps, and no call may read,
// list, create or change anything outside in between.
import assert from 'node:assert/strict'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { Worker } from 'node:worker_threads'
import { fileFixture, SECRET } from './setup.ts'

// Runs in its own thread so the swaps go on while the gateway's thread awaits file-system calls.
const SWAPPER = `
const { workerData } = require('node:worker_threads')
const { renameSync, rmSync, symlinkSync } = require('node:fs')
const { dir, parked, target, stop } = workerData
const flag = new Int32Array(stop)
// A tool may create the folder again while it is away (write_file makes missing folders): that one
// is removed (rm takes a link itself, never what it points to) and the parked one put back.
const putBack = () => {
  for (;;) {
    try { renameSync(parked, dir); return } catch {}
    try { rmSync(dir, { recursive: true, force: true }) } catch {}
  }
}
// Each state lasts a moment, so a call's check and its use often see different ones.
const hold = () => { const until = process.hrtime.bigint() + 200_000n; while (process.hrtime.bigint() < until); }
while (Atomics.load(flag, 0) === 0) {
  try { renameSync(dir, parked) } catch { continue }
  try { symlinkSync(target, dir); hold(); rmSync(dir, { force: true }) } catch {}
  putBack()
  hold()
}
`

test('a parent folder swapped for a link to outside during calls: nothing outside is read, listed, created or changed', async (t) => {
  const fx = await fileFixture(t)
  const target = join(fx.h.tempDir, 'swap-target')
  await mkdir(target)
  await writeFile(join(target, 'f.txt'), SECRET)
  await writeFile(join(target, 'outside-only.txt'), SECRET)
  await fx.put({ 'dir/f.txt': 'inside\n' })
  const stop = new SharedArrayBuffer(4)
  const swapper = new Worker(SWAPPER, { eval: true, workerData: { dir: join(fx.ws, 'dir'), parked: join(fx.ws, 'parked'), target, stop } })
  const stopped = new Promise((resolve) => swapper.once('exit', resolve))
  const leaks: string[] = []
  try {
    const until = Date.now() + 4000
    for (let round = 0; Date.now() < until; round++) {
      const outcomes = await Promise.all([
        fx.h.call('read_file', { path: 'dir/f.txt' }),
        fx.h.call('read_file', { path: 'dir/f.txt' }),
        fx.h.call('read_file', { path: 'dir/f.txt' }),
        fx.h.call('search_files', { pattern: 'SECRET', path: 'dir' }),
        fx.h.call('search_files', { target: 'files', pattern: '*', path: 'dir' }),
        fx.h.call('write_file', { path: 'dir/f.txt', content: 'inside\n' }),
        fx.h.call('write_file', { path: `dir/new-${round}.txt`, content: 'new\n' }),
        fx.h.call('write_file', { path: `dir/sub-${round}/deep.txt`, content: 'deep\n' }),
        fx.h.call('patch', { path: 'dir/f.txt', old_string: 'inside', new_string: 'inside' + (round % 2 === 0 ? '' : ' ') })
      ])
      for (const outcome of outcomes) if (outcome.content.includes('TOP SECRET') || outcome.content.includes('outside-only')) leaks.push(outcome.content)
    }
  } finally {
    Atomics.store(new Int32Array(stop), 0, 1)
    await stopped
  }
  assert.deepEqual(leaks, [], 'a call saw outside content')
  assert.deepEqual((await readdir(target)).sort(), ['f.txt', 'outside-only.txt'], 'something was created outside')
  assert.equal(await readFile(join(target, 'f.txt'), 'utf8'), SECRET, 'the outside file was changed')
  await rm(join(fx.ws, 'dir'), { recursive: true, force: true })
})
