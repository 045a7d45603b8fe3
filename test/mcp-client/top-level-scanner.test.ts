// The top-level id and method of a JSON-RPC message, read as JSON.parse reads them: escaped member
// names, duplicate ids (the last counts) and ids too long to keep, whichever way a server spells them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { TopLevelScanner } from '../../src/mcp-client/top-level-scanner.ts'

function scan (text: string, pieces = 1): TopLevelScanner {
  const scanner = new TopLevelScanner()
  const bytes = Buffer.from(text)
  const size = Math.ceil(bytes.length / pieces)
  for (let at = 0; at < bytes.length; at += size) scanner.feed(bytes.subarray(at, at + size))
  return scanner
}

test('the id and method JSON.parse sees, however the names are escaped, in one piece or many', () => {
  const cases = [
    '{"jsonrpc":"2.0","id":3,"result":{}}',
    '{"jsonrpc":"2.0","i\\u0064":3,"result":{}}',
    '{"jsonrpc":"2.0","\\u0069\\u0064":"x","result":{"id":9}}',
    '{"jsonrpc":"2.0","id":3,"result":{},"i\\u0064":4}',
    '{"jsonrpc":"2.0","m\\u0065thod":"ping","id":5}',
    '{"jsonrpc":"2.0","\\u006d\\u0065\\u0074\\u0068\\u006f\\u0064":"ping"}',
    '{"jsonrpc":"2.0","id":"a\\"b","result":{}}'
  ]
  for (const text of cases) {
    const parsed = JSON.parse(text) as { id?: unknown, method?: unknown }
    for (const pieces of [1, 3, text.length]) {
      const scanner = scan(text, pieces)
      assert.equal(scanner.id, parsed.id, `${text} in ${pieces}`)
      assert.equal(scanner.hasId, 'id' in parsed, text)
      assert.equal(scanner.hasMethod, 'method' in parsed, text)
    }
  }
})

test('a last id that cannot be read leaves no id, never an earlier one', () => {
  for (const last of [JSON.stringify('0'.repeat(300) + '4'), 'null', '[4]', '{"n":4}']) {
    const scanner = scan(`{"jsonrpc":"2.0","id":3,"result":{},"id":${last}}`)
    assert.equal(scanner.id, undefined, last)
    assert.equal(scanner.hasId, true, last)
  }
  assert.equal(scan('{"jsonrpc":"2.0","error":{"code":1,"message":"x"}}').hasId, false)
})
