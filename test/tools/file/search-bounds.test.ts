// search_files details the main tests leave open: which files count against the files bound in each
// target, the deadline met while walking, and context windows at CRLF lines and at the file's ends.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { fileFixture, withLimits } from './setup.ts'

test('content: files left out by file_glob or skipped do not count against the bound; names: every visited entry does', async (t) => {
  const fx = await fileFixture(t)
  withLimits(t, { searchMaxFiles: 2 })
  await fx.put({ 'a.md': 'x', 'b.bin': Buffer.from('x\0x'), 'c.md': 'x', 'd.txt': 'x', 'e.md': 'x', 'f.txt': 'x' })
  const content = await fx.json('search_files', { pattern: 'x', file_glob: '*.{txt,bin}', output_mode: 'files_with_matches' })
  assert.deepEqual(content.files, ['d.txt', 'f.txt'])
  assert.equal(content.truncated, false)
  assert.equal(content.files_scanned, 2)
  assert.deepEqual(content.skipped, { binary: 1 })
  const names = await fx.json('search_files', { target: 'files', pattern: '*.txt' })
  assert.deepEqual(names.files, [])
  assert.equal(names.files_scanned, 2)
  assert.equal(names.truncated_reason, 'stopped early: the limit of 2 files visited was reached; results may be incomplete')
})

test('the deadline met while walking names stops the search and says so', async (t) => {
  const fx = await fileFixture(t)
  const files: Record<string, string> = {}
  for (let i = 0; i < 400; i++) files[`d${i % 20}/f${i}.txt`] = ''
  await fx.put(files)
  withLimits(t, { searchDeadlineMs: 1 })
  const names = await fx.json('search_files', { target: 'files', pattern: '*.txt', limit: 1000 })
  assert.equal(names.truncated, true)
  assert.equal(names.truncated_reason, 'stopped early: the 1 ms time limit was reached; results may be incomplete')
  assert.ok((names.files as string[]).length < 400)
})

test('context windows: CRLF endings dropped, no empty line after a final newline, clipped at both ends', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'crlf.txt': 'top\r\nhit one\r\nmid\r\nhit two\r\n', 'open.txt': 'hit first\nlast' })
  const result = await fx.json('search_files', { pattern: '^hit', context: 3 })
  assert.equal(result.output, [
    'crlf.txt-1-top',
    'crlf.txt:2:hit one',
    'crlf.txt-3-mid',
    'crlf.txt:4:hit two',
    '--',
    'open.txt:1:hit first',
    'open.txt-2-last'
  ].join('\n'))
  assert.equal(result.matches, 3)
})
