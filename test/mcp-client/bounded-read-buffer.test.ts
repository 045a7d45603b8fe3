// The stdio reader that refuses one message over the cap instead of dropping the connection: the
// refused answer becomes an error for its own request id, wherever the id sits in the message and
// however the bytes are chunked, and the messages around it are read as usual.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BoundedReadBuffer, type OversizedMessage } from '../../src/mcp-client/bounded-read-buffer.ts'

function reader (capBytes: number): { buffer: BoundedReadBuffer, refused: OversizedMessage[] } {
  const refused: OversizedMessage[] = []
  return { buffer: new BoundedReadBuffer(capBytes, (message) => refused.push(message)), refused }
}

function drain (buffer: BoundedReadBuffer): unknown[] {
  const out: unknown[] = []
  for (let message = buffer.readMessage(); message !== null; message = buffer.readMessage()) out.push(message)
  return out
}

/** Feeds `text` in pieces of `size` bytes. */
function feed (buffer: BoundedReadBuffer, text: string, size: number): void {
  const bytes = Buffer.from(text)
  for (let i = 0; i < bytes.length; i += size) buffer.append(bytes.subarray(i, i + size))
}

const filler = 'x'.repeat(500)
const CASES: Array<[string, string, string | number]> = [
  ['id last, after a result that holds an "id" of its own', `{"result":{"id":99,"content":[{"type":"text","text":"${filler}"}]},"jsonrpc":"2.0","id":7}`, 7],
  ['id first', `{"jsonrpc":"2.0","id":"call-1","result":{"text":"${filler}"}}`, 'call-1'],
  ['id between, strings with escaped quotes and braces', `{"result":{"text":"a \\"quoted\\" } { ${filler}"}, "id" : 12 ,"jsonrpc":"2.0"}`, 12]
]

for (const [name, line, id] of CASES) {
  for (const size of [1, 7, 4096]) {
    test(`an oversized answer fails its own request: ${name} (chunks of ${size} bytes)`, () => {
      const { buffer, refused } = reader(100)
      feed(buffer, `{"jsonrpc":"2.0","id":1,"result":{}}\n${line}\n{"jsonrpc":"2.0","id":2,"result":{}}\n`, size)
      const messages = drain(buffer) as Array<{ id: unknown, error?: { message: string }, result?: unknown }>
      assert.deepEqual(messages.map((m) => m.id), [1, id, 2])
      assert.deepEqual(messages[0].result, {})
      assert.match(messages[1].error?.message ?? '', new RegExp(`answer of ${Buffer.byteLength(line)} bytes is over the 100-byte cap`))
      assert.deepEqual(refused, [{ bytes: Buffer.byteLength(line), capBytes: 100, id, fromServer: false }])
    })
  }
}

test('an oversized request or notification from the server is dropped: there is nothing to fail', () => {
  const { buffer, refused } = reader(50)
  feed(buffer, `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${filler}"}}\n{"jsonrpc":"2.0","id":3,"result":{}}\n`, 64)
  assert.deepEqual(drain(buffer), [{ jsonrpc: '2.0', id: 3, result: {} }])
  assert.equal(refused.length, 1)
  assert.equal(refused[0].fromServer, true)
})

test('a line within the cap is parsed as the SDK would: CRLF tolerated, non-JSON lines skipped', () => {
  const { buffer, refused } = reader(1000)
  feed(buffer, 'not json\r\n{"jsonrpc":"2.0","id":4,"result":{"ok":true}}\r\n', 5)
  assert.deepEqual(drain(buffer), [{ jsonrpc: '2.0', id: 4, result: { ok: true } }])
  assert.deepEqual(refused, [])
})
