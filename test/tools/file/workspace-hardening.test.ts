// Escapes and leftovers beyond plain paths: temp files of interrupted atomic writes (cleaned at the
// first use of a workspace, hidden from every tool), hard links to outside files, lone surrogates
// that alias one file, and the workspace size quota.
import assert from 'node:assert/strict'
import { link, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileFixture, SECRET } from './setup.ts'

const STALE_TEMP = '.notes.txt.0123456789abcdef.tmp'

test('temp files of an interrupted write older than the process are removed when the workspace is first used', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ [STALE_TEMP]: 'half a write', 'sub/.a.txt.fedcba9876543210.tmp': 'another', 'keep.txt': 'kept' })
  const longAgo = new Date(Date.now() - 3600_000)
  await utimes(join(fx.ws, STALE_TEMP), longAgo, longAgo)
  await utimes(join(fx.ws, 'sub/.a.txt.fedcba9876543210.tmp'), longAgo, longAgo)
  // A write waits for the preparation of the workspace (reads do not).
  await fx.json('write_file', { path: 'keep.txt', content: 'kept' })
  assert.deepEqual((await readdir(fx.ws, { recursive: true })).sort(), ['keep.txt', 'sub'])
})

test('temp files are hidden: search_files never lists them, read_file and write_file refuse their names', async (t) => {
  const fx = await fileFixture(t)
  // Newer than the process: an atomic write of this process may own it, so it stays, unseen.
  await fx.json('write_file', { path: 'first.txt', content: '' })
  await fx.put({ [STALE_TEMP]: 'needle in a temp\n', 'a.txt': 'needle\n' })
  const names = await fx.json('search_files', { target: 'files', pattern: '*' })
  assert.deepEqual(names.files, ['a.txt', 'first.txt'])
  const content = await fx.json('search_files', { pattern: 'needle', output_mode: 'files_with_matches' })
  assert.deepEqual(content.files, ['a.txt'])
  for (const [tool, args] of [['read_file', { path: STALE_TEMP }], ['write_file', { path: STALE_TEMP, content: 'x' }]] as const) {
    const outcome = await fx.h.call(tool, args)
    assert.equal(outcome.status, 'error', outcome.content)
    assert.match(outcome.content, /reserved for the temporary files of atomic writes/)
  }
  assert.equal(await readFile(join(fx.ws, STALE_TEMP), 'utf8'), 'needle in a temp\n')
})

test('a hard link to a file outside the workspace is neither read, edited, searched nor written through', async (t) => {
  const fx = await fileFixture(t)
  await link(join(fx.outside, 'secret.txt'), join(fx.ws, 'hard.txt'))
  const calls: Array<[string, Record<string, unknown>]> = [
    ['read_file', { path: 'hard.txt' }],
    ['patch', { path: 'hard.txt', old_string: 'TOP', new_string: 'pwned' }],
    ['patch', { mode: 'patch', patch: '--- hard.txt\n+++ hard.txt\n@@ -1 +1 @@\n-TOP SECRET\n+pwned\n' }],
    ['write_file', { path: 'hard.txt', content: 'pwned' }]
  ]
  for (const [tool, args] of calls) {
    const outcome = await fx.h.call(tool, args)
    assert.equal(outcome.status, 'error', `${tool}: ${outcome.content}`)
    assert.match(outcome.content, /has 2 hard links/, tool)
    assert.ok(!outcome.content.includes('TOP SECRET'), `${tool} leaked the outside file`)
  }
  const search = await fx.json('search_files', { pattern: 'SECRET' })
  assert.equal(search.output, '')
  assert.deepEqual(search.skipped, { hard_linked: 1 })
  assert.equal(await readFile(join(fx.outside, 'secret.txt'), 'utf8'), SECRET)
  assert.equal((await stat(join(fx.outside, 'secret.txt'))).nlink, 2)
})

test('paths with a lone surrogate are refused: they would alias the file named with U+FFFD', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'a\uFFFD.txt': 'original\n' })
  for (const path of ['a\uD800.txt', 'a\uDC00.txt', 'dir\uDBFF/x.txt']) {
    for (const [tool, args] of [['read_file', { path }], ['write_file', { path, content: 'overwritten' }], ['search_files', { pattern: 'x', path }]] as const) {
      const outcome = await fx.h.call(tool, args)
      assert.equal(outcome.status, 'error', `${tool}: ${outcome.content}`)
      assert.match(outcome.content, /lone surrogate/, tool)
    }
  }
  assert.equal(await readFile(join(fx.ws, 'a\uFFFD.txt'), 'utf8'), 'original\n')
})

test('the workspace quota: writes and patches that would pass it are refused, and freed space counts again', async (t) => {
  const fx = await fileFixture(t, { WORKSPACE_MAX_BYTES: '1000' })
  await fx.put({ 'existing.txt': 'e'.repeat(300) })
  assert.equal((await fx.h.call('write_file', { path: 'a.txt', content: 'a'.repeat(600) })).status, 'ok')
  const over = await fx.h.call('write_file', { path: 'b.txt', content: 'b'.repeat(200) })
  assert.equal(over.status, 'error', over.content)
  assert.match(over.content, /workspace quota of 1000 bytes/)
  await assert.rejects(stat(join(fx.ws, 'b.txt')), { code: 'ENOENT' })
  const grown = await fx.h.call('patch', { path: 'a.txt', old_string: 'a'.repeat(600), new_string: 'a'.repeat(800) })
  assert.match(grown.content, /workspace quota of 1000 bytes/)
  const diff = await fx.h.call('patch', { mode: 'patch', patch: '--- /dev/null\n+++ c.txt\n@@ -0,0 +1 @@\n+' + 'c'.repeat(200) + '\n' })
  assert.match(diff.content, /workspace quota of 1000 bytes/)
  // Replacing a file counts only the difference; shrinking one frees room for another.
  assert.equal((await fx.h.call('write_file', { path: 'a.txt', content: 'a'.repeat(100) })).status, 'ok')
  assert.equal((await fx.h.call('write_file', { path: 'b.txt', content: 'b'.repeat(500) })).status, 'ok')
  assert.equal(await readFile(join(fx.ws, 'a.txt'), 'utf8'), 'a'.repeat(100))
})

test('the quota counts files changed outside the tools once it is re-measured before a refusal', async (t) => {
  const fx = await fileFixture(t, { WORKSPACE_MAX_BYTES: '1000' })
  await fx.put({ 'big.txt': 'x'.repeat(900) })
  assert.match((await fx.h.call('write_file', { path: 'n.txt', content: 'n'.repeat(200) })).content, /workspace quota/)
  // Deleted by other means (the terminal, an operator): the refusal re-measures and sees the room.
  await writeFile(join(fx.ws, 'big.txt'), '')
  assert.equal((await fx.h.call('write_file', { path: 'n.txt', content: 'n'.repeat(200) })).status, 'ok')
})
