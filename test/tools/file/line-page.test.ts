// The streaming page reader behind read_file, checked against a plain in-memory model of the same
// rules on random texts, with chunk sizes down to one byte so lines and characters straddle reads.
import assert from 'node:assert/strict'
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import fc from 'fast-check'
import { readLinePage } from '../../../tools/file/lib/line-page.ts'

interface Expected { content: string, nextOffset: number | undefined, truncated: boolean, cutLines: number[], totalLines: number }

function model (text: string, offset: number, limit: number, budget: number): Expected {
  const lines = text === '' ? [] : text.split('\n')
  if (text.endsWith('\n')) lines.pop()
  const shown: string[] = []
  const cutLines: number[] = []
  let used = 0
  let nextOffset: number | undefined
  let truncated = false
  for (let i = Math.max(0, offset - 1); i < lines.length; i++) {
    const n = i + 1
    if (shown.length >= limit) { nextOffset = n; break }
    let entry = `${n}|${lines[i].replace(/\r$/, '')}`
    const cost = entry.length + (shown.length > 0 ? 1 : 0)
    if (used + cost > budget) {
      if (shown.length > 0) { nextOffset = n; truncated = true; break }
      let head = entry.slice(0, budget - 80)
      if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1)
      entry = `${head} … [line ${n} cut: longer than ${budget} characters]`
      cutLines.push(n)
    }
    used += entry.length + (shown.length > 0 ? 1 : 0)
    shown.push(entry)
  }
  return { content: shown.join('\n'), nextOffset, truncated, cutLines, totalLines: lines.length }
}

/** Writes `text` to `file`, reads one page of it and checks every field against the model. */
async function assertPageMatchesModel (file: string, text: string, o: { offset: number, limit: number, budget: number, chunkBytes: number, countAll: boolean }): Promise<void> {
  await writeFile(file, text)
  const handle = await open(file, 'r')
  try {
    const page = await readLinePage(handle, o)
    const expected = model(text, o.offset, o.limit, o.budget)
    assert.equal(page.content, expected.content)
    assert.ok(page.content.length <= o.budget, 'a page never exceeds the budget')
    assert.equal(page.nextOffset, expected.nextOffset)
    assert.equal(page.truncated, expected.truncated)
    assert.deepEqual(page.cutLines, expected.cutLines)
    assert.equal(page.linesReturned, expected.content === '' ? 0 : expected.content.split('\n').length)
    if (o.countAll || page.totalLines !== undefined) assert.equal(page.totalLines, expected.totalLines)
  } finally {
    await handle.close()
  }
}

const lineChar = fc.constantFrom('a', 'b', ' ', 'é', '€', '😀', '\r', '|')
const lineText = fc.array(lineChar, { maxLength: 40 }).map((chars) => chars.join(''))
const fileText = fc.tuple(fc.array(lineText, { maxLength: 30 }), fc.boolean())
  .map(([lines, endsWithNewline]) => lines.join('\n') + (endsWithNewline && lines.length > 0 ? '\n' : ''))

test('readLinePage matches the model for any text, chunk size, offset, limit and budget', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-page-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'text.txt')
  await fc.assert(fc.asyncProperty(
    fileText, fc.integer({ min: 1, max: 35 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 100, max: 220 }),
    fc.integer({ min: 1, max: 17 }), fc.boolean(),
    (text, offset, limit, budget, chunkBytes, countAll) => assertPageMatchesModel(file, text, { offset, limit, budget, chunkBytes, countAll })
  ), { numRuns: 1000 })
})

test('readLinePage counts the newline between rows against the budget (exact boundary)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-page-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'rows.txt')
  await writeFile(file, 'aaaa\nbbbb\ncccc\n')
  const handle = await open(file, 'r')
  t.after(() => handle.close())
  // "1|aaaa" (6) + "\n2|bbbb" (7) = 13: a budget of 13 fits two rows, 12 only one.
  const fits = await readLinePage(handle, { offset: 1, limit: 10, budget: 13, countAll: true })
  assert.equal(fits.content, '1|aaaa\n2|bbbb')
  const short = await readLinePage(handle, { offset: 1, limit: 10, budget: 12, countAll: true })
  assert.equal(short.content, '1|aaaa')
  assert.equal(short.nextOffset, 2)
  assert.equal(short.truncated, true)
})

test('readLinePage stops reading after the page when the total is not wanted', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-page-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'big.txt')
  await writeFile(file, 'line\n'.repeat(100_000))
  const handle = await open(file, 'r')
  t.after(() => handle.close())
  let reads = 0
  const counting = new Proxy(handle, {
    get (target, key) {
      if (key === 'read') return (...args: Parameters<typeof handle.read>) => { reads += 1; return target.read(...args) }
      const value = Reflect.get(target, key)
      return typeof value === 'function' ? value.bind(target) : value
    }
  })
  const page = await readLinePage(counting, { offset: 1, limit: 3, budget: 1000, countAll: false, chunkBytes: 64 })
  assert.equal(page.content, '1|line\n2|line\n3|line')
  assert.equal(page.nextOffset, 4)
  assert.equal(page.totalLines, undefined)
  assert.equal(reads, 1, 'the first 64-byte chunk holds the page and the start of line 4')
})

test('readLinePage honours an aborted signal', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-page-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'a.txt')
  await writeFile(file, 'a\n')
  const handle = await open(file, 'r')
  t.after(() => handle.close())
  const controller = new AbortController()
  controller.abort(new Error('stop'))
  await assert.rejects(readLinePage(handle, { offset: 1, limit: 1, budget: 100, countAll: true, signal: controller.signal }), /stop/)
})

const longLine = fc.array(lineChar, { maxLength: 300, size: 'max' }).map((chars) => chars.join(''))
const longLinesText = fc.tuple(fc.array(longLine, { maxLength: 8 }), fc.boolean())
  .map(([lines, endsWithNewline]) => lines.join('\n') + (endsWithNewline && lines.length > 0 ? '\n' : ''))

test('readLinePage matches the model when lines outgrow the budget: cut heads, surrogates kept whole', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-page-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'long.txt')
  await fc.assert(fc.asyncProperty(
    longLinesText, fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 100, max: 160 }),
    fc.integer({ min: 1, max: 40 }), fc.boolean(),
    (text, offset, limit, budget, chunkBytes, countAll) => assertPageMatchesModel(file, text, { offset, limit, budget, chunkBytes, countAll })
  ), { numRuns: 500 })
})
