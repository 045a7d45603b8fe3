// Issue 25 item 5: exact quotas. Writes reserve their bytes and new entries before they start, so
// writes running at once cannot together pass WORKSPACE_MAX_BYTES; WORKSPACE_MAX_FILES bounds files
// and folders; a write that fails leaves no folder of its own; a re-measure taken while writes run
// does not forget them.
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { buildTestApp } from '../../helpers/app.ts'
import { WorkspaceUsage } from '../../../tools/file/lib/workspace-usage.ts'
import { fileFixture, leftoverTempFiles } from './setup.ts'

async function onDisk (dir: string): Promise<{ bytes: number, entries: number }> {
  let bytes = 0
  let entries = 0
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    entries++
    if (entry.isFile()) bytes += (await stat(join(entry.parentPath, entry.name))).size
  }
  return { bytes, entries }
}

test('40 concurrent 100 KB writes under a 1 MB quota: what lands stays within it, and the refusals say so', async (t) => {
  const fx = await fileFixture(t, { WORKSPACE_MAX_BYTES: String(1_000_000) })
  const content = 'x'.repeat(100_000)
  const outcomes = await Promise.all(Array.from({ length: 40 }, async (_, i) => await fx.h.call('write_file', { path: `w${i}.txt`, content })))
  const ok = outcomes.filter((outcome) => outcome.status === 'ok').length
  assert.equal(ok, 10, 'exactly as many as fit')
  for (const outcome of outcomes.filter((o) => o.status !== 'ok')) assert.match(outcome.content, /workspace quota of 1000000 bytes/)
  const disk = await onDisk(fx.ws)
  assert.equal(disk.bytes, 1_000_000)
  assert.deepEqual(await leftoverTempFiles(fx.ws), [])
})

test('a re-measure taken while a write runs does not forget it; one that overlaps a settled write is not taken', async (t) => {
  const fx = await fileFixture(t)
  const usage = await WorkspaceUsage.prepare(fx.ws)
  const quota = { maxBytes: 1_000, maxEntries: 100 }
  const running = await usage.reserve(800, 1, quota, 'a.txt')
  await usage.remeasure() // the disk holds nothing yet: the running write's 800 bytes must stay counted
  await assert.rejects(usage.reserve(300, 1, quota, 'b.txt'), /would bring the workspace to 1100 bytes, over the workspace quota of 1000 bytes/)
  await writeFile(join(fx.ws, 'a.txt'), 'a'.repeat(800))
  running.settle()
  assert.deepEqual({ bytes: usage.bytes, entries: usage.entries }, { bytes: 800, entries: 1 })
  running.release()
  assert.equal(usage.bytes, 800, 'a settled reservation cannot be given back as well')
  await writeFile(join(fx.ws, 'a.txt'), '')
  await usage.remeasure()
  assert.equal(usage.bytes, 0, 'a quiet re-measure is taken')
})

test('WORKSPACE_MAX_FILES: files and the folders they need count; past it nothing is created', async (t) => {
  const fx = await fileFixture(t, { WORKSPACE_MAX_FILES: '10' })
  for (let i = 0; i < 6; i++) assert.equal((await fx.h.call('write_file', { path: `f${i}.txt`, content: '' })).status, 'ok')
  const deep = await fx.h.call('write_file', { path: 'a/b/c/d/e/f.txt', content: '' })
  assert.equal(deep.status, 'error')
  assert.match(deep.content, /would bring the workspace to 12 files and folders, over the workspace quota of 10 \(WORKSPACE_MAX_FILES\)/)
  assert.deepEqual(await onDisk(fx.ws), { bytes: 0, entries: 6 }, 'no folder made for the refused write')
  assert.equal((await fx.h.call('write_file', { path: 'a/b/c.txt', content: '' })).status, 'ok', 'what fits still goes')
  assert.equal((await fx.h.call('write_file', { path: 'f0.txt', content: 'replaced' })).status, 'ok', 'replacing adds no entry')
  const many = await Promise.all(Array.from({ length: 20 }, async (_, i) => await fx.h.call('write_file', { path: `m${i}.txt`, content: '' })))
  assert.equal(many.filter((outcome) => outcome.status === 'ok').length, 1)
  assert.equal((await onDisk(fx.ws)).entries, 10)
})

test('a write that fails after making its folders leaves none behind', async (t) => {
  const fx = await fileFixture(t)
  // Every folder name fits, the whole path does not (PATH_MAX is 4096): the folders can be made
  // one by one through their parents, the file cannot be opened.
  const path = `${'d/'.repeat(2_040)}file.txt`
  const outcome = await fx.h.call('write_file', { path, content: 'x' })
  assert.equal(outcome.status, 'error', outcome.content)
  assert.deepEqual(await readdir(fx.ws), [], 'no folder left')
  const patched = await fx.h.call('patch', { mode: 'patch', patch: `--- /dev/null\n+++ ${path}\n@@ -0,0 +1 @@\n+x\n` })
  assert.equal(patched.status, 'error', patched.content)
  assert.deepEqual(await readdir(fx.ws), [], 'no folder left by patch either')
})

test('temp files a killed write left are removed when the gateway starts, with no file tool called', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'gw-leftovers-'))
  t.after(async () => { await rm(root, { recursive: true, force: true }) })
  const leftover = join(root, 'deep', '.report.txt.0123456789abcdef.tmp')
  await mkdir(dirname(leftover), { recursive: true })
  await writeFile(leftover, 'half a write')
  const longAgo = new Date(Date.now() - 3_600_000)
  await utimes(leftover, longAgo, longAgo)
  const { app } = await buildTestApp(t, { WORKSPACE_ROOT: root }, { builtins: true })
  await app.ready()
  const deadline = Date.now() + 10_000
  while (await stat(leftover).then(() => true, () => false)) {
    assert.ok(Date.now() < deadline, `${leftover} still there 10 s after start`)
    await sleep(20)
  }
  assert.deepEqual(await readdir(root, { recursive: true }), ['deep'])
})
