// The SSE splitter behind the HTTP answer caps: events come out whole and byte for byte, whatever
// the line ends (CRLF, LF, CR) and wherever the chunks are cut; one past the cap is refused as it grows.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { eventFields, SseEventSplitter } from '../../src/mcp-client/sse-events.ts'

function split (stream: string, cuts: number[], cap = 1 << 20): string[] {
  const splitter = new SseEventSplitter(cap)
  const bytes = Buffer.from(stream)
  const events: string[] = []
  let from = 0
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    for (const piece of splitter.push(bytes.subarray(from, cut))) events.push(piece.kind === 'event' ? piece.raw.toString() : `oversized ${piece.bytes}`)
    from = cut
  }
  return events
}

test('events end at a blank line, with any line end; an event cut off by the end of the stream stays out', () => {
  assert.deepEqual(split('data: a\n\nevent: x\ndata: b\n\n: comment\n\ndata: c', []), ['data: a\n\n', 'event: x\ndata: b\n\n', ': comment\n\n'])
  assert.deepEqual(split('data: a\r\n\r\ndata: b\r\rdata: c\n\n', []), ['data: a\r\n\r', '\ndata: b\r\r', 'data: c\n\n'])
})

test('an LF opening a chunk ends the line before it, even when a CR ended the line before that', () => {
  const stream = 'data: x\r: c\rdata: y\n\n'
  assert.deepEqual(split(stream, [stream.indexOf('y') + 1]), split(stream, []))
  assert.deepEqual(split(stream, []), [stream])
})

test('wherever the chunks are cut, the same events come out (property)', () => {
  const line = fc.constantFrom('data: {"id":1}', 'data: x', 'event: message', ': c', 'id: 7', '')
  const end = fc.constantFrom('\n', '\r\n', '\r')
  fc.assert(fc.property(fc.array(fc.tuple(line, end), { maxLength: 30 }), fc.array(fc.nat(400), { maxLength: 10 }), (lines, cuts) => {
    const stream = lines.map(([text, eol]) => text + eol).join('')
    assert.deepEqual(split(stream, cuts), split(stream, []))
  }), { numRuns: 500 })
})

test('an event over the cap is refused once, and nothing after it is read', () => {
  const refused = split(`data: ${'x'.repeat(100)}\n\ndata: ok\n\n`, [10, 50], 64)
  assert.equal(refused.length, 1)
  assert.match(refused[0], /^oversized \d+$/)
  assert.deepEqual(split('data: small\n\ndata: ok\n\n', [], 64), ['data: small\n\n', 'data: ok\n\n'])
})

test('the fields of an event: its type and data lines, the space after the colon dropped once', () => {
  const fields = eventFields(Buffer.from('\nevent: message\r\ndata:  two spaces\ndata:{"a":1}\n: note\nid: 3\n\n'))
  assert.equal(fields.type, 'message')
  assert.deepEqual(fields.data.map(String), [' two spaces', '{"a":1}'])
})
