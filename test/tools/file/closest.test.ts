// The closest-lines finder behind the "not found" errors of patch: whitespace-only differences,
// similar windows anchored on first and last lines, nothing similar, and line numbering.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { findClosestLines, lineNumbersAt, lineSimilarity, numberedExcerpt } from '../../../tools/file/lib/closest.ts'

const FILE = ['alpha()', 'function start (options) {', '  const port = options.port', '  listen(port)', '}', 'omega()'].join('\n')

test('a text differing only in whitespace is found exactly', () => {
  const match = findClosestLines(FILE, 'function  start (options) {\n\tconst port = options.port\n')
  assert.deepEqual(match, { startLine: 2, endLine: 3, similarity: 1, whitespaceOnly: true })
})

test('a similar window is found from its first or last line', () => {
  const byFirst = findClosestLines(FILE, 'function start (opts) {\n  const port = opts.port\n  listen(port)')
  assert.equal(byFirst?.startLine, 2)
  assert.equal(byFirst?.endLine, 4)
  assert.equal(byFirst?.whitespaceOnly, false)
  assert.ok((byFirst?.similarity ?? 0) > 0.6 && (byFirst?.similarity ?? 1) < 1)
  // The first line is unrecognisable; the last one still anchors the window.
  const byLast = findClosestLines(FILE, 'zzzzzzzzzzzz\n  const port = options.prt')
  assert.equal(byLast?.startLine, 2)
  assert.equal(byLast?.endLine, 3)
})

test('nothing similar gives undefined', () => {
  assert.equal(findClosestLines(FILE, 'qqqq xxxx'), undefined)
  assert.equal(findClosestLines(FILE, '\n  \n'), undefined)
})

test('similarity, excerpts and line numbers', () => {
  assert.equal(lineSimilarity('  a  b ', 'a b'), 1)
  assert.equal(lineSimilarity('abcd', 'wxyz'), 0)
  assert.equal(numberedExcerpt(FILE, 2, 3), '2|function start (options) {\n3|  const port = options.port')
  assert.equal(numberedExcerpt(FILE, 1, 6, 2), '1|alpha()\n2|function start (options) {\n… (4 more lines)')
  assert.deepEqual(lineNumbersAt('a\nb\nc\nb', [2, 6]), [2, 4])
})
