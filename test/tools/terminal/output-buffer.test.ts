// The bounded output buffer: 40 % head, rolling 60 % tail, a marker with the counts, reads from an
// offset, and memory that stays bounded whatever is written.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { CappedOutput, omissionMarker } from '../../../tools/terminal/lib/output-buffer.ts'

const digits = (from: number, to: number): string => {
  let s = ''
  for (let i = from; i < to; i++) s += String(i % 10)
  return s
}

test('output under the cap is kept whole, without a marker', () => {
  const out = new CappedOutput(100)
  out.write('a'.repeat(60))
  out.write('b'.repeat(40))
  assert.equal(out.toString(), 'a'.repeat(60) + 'b'.repeat(40))
  assert.equal(out.omittedChars, 0)
  assert.equal(out.totalChars, 100)
})

test('output over the cap keeps the first 40 % and the last 60 % with the counts in between', () => {
  const out = new CappedOutput(100)
  const text = digits(0, 1000)
  // Odd chunk sizes so that head and tail boundaries fall inside chunks.
  for (let i = 0; i < text.length; i += 7) out.write(text.slice(i, i + 7))
  assert.equal(out.toString(), text.slice(0, 40) + omissionMarker(900, 1000) + text.slice(-60))
  assert.equal(out.omittedChars, 900)
  assert.match(out.toString(), /\[\.\.\. 900 characters omitted of 1000 \.\.\.\]/)
})

test('read(from) returns only what came after the offset, with the marker only over a real gap', () => {
  const out = new CappedOutput(100)
  const text = digits(0, 500)
  out.write(text)
  assert.deepEqual(out.read(10), { text: text.slice(10, 40) + omissionMarker(400, 500) + text.slice(-60), omitted: 400, next: 500 })
  // From inside the dropped middle: the marker counts only what the reader missed.
  assert.deepEqual(out.read(100), { text: omissionMarker(340, 500) + text.slice(-60), omitted: 340, next: 500 })
  assert.deepEqual(out.read(480), { text: text.slice(480), omitted: 0, next: 500 })
  assert.deepEqual(out.read(500), { text: '', omitted: 0, next: 500 })
  assert.deepEqual(out.read(9999), { text: '', omitted: 0, next: 500 })
  out.write('xyz')
  assert.deepEqual(out.read(500), { text: 'xyz', omitted: 0, next: 503 })
})

test('memory stays bounded: 10 MB written through a 1000-character buffer retains a few thousand', () => {
  const out = new CappedOutput(1000)
  const chunk = 'z'.repeat(65_536)
  let peak = 0
  for (let i = 0; i < 160; i++) {
    out.write(chunk)
    peak = Math.max(peak, out.retainedChars)
  }
  assert.equal(out.totalChars, 160 * 65_536)
  // head + at most twice the tail + one chunk.
  assert.ok(peak <= 400 + 2 * 600 + 65_536, `retained ${peak}`)
  assert.ok(out.retainedChars <= 400 + 2 * 600, `retained ${out.retainedChars} after the last write`)
  assert.equal(out.toString().length, 1000 + omissionMarker(out.omittedChars, out.totalChars).length)
})

test('a surrogate pair is never split at the head or tail boundary', () => {
  const out = new CappedOutput(10) // head 4, tail 6
  out.write('abc😀' + 'x'.repeat(20) + '😀yyyy')
  const text = out.toString()
  assert.doesNotMatch(text, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/, 'no lone high surrogate')
  assert.doesNotMatch(text, /(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/, 'no lone low surrogate')
  assert.ok(text.startsWith('abc\n'))
  assert.ok(text.endsWith('😀yyyy'))
})

test('a cap below 10 characters is refused', () => {
  assert.throws(() => new CappedOutput(5), RangeError)
})
