// tools/list pages: a cursor names the last tool of the page before, so tools that come and go
// between pages neither repeat nor hide the ones that stay; a cursor not made here is refused.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ProtocolError, ProtocolErrorCode, type Tool } from '@modelcontextprotocol/server'
import { pageOf } from '../../src/mcp-server/tool-pages.ts'

const tools = (...names: string[]): Tool[] => names.map((name) => ({ name, inputSchema: { type: 'object' } }))
const names = (page: { tools: Tool[] }): string[] => page.tools.map((tool) => tool.name)

test('pages follow each other through nextCursor, the last one without it', () => {
  const all = tools('a', 'b', 'c', 'd', 'e')
  const first = pageOf(all, undefined, 2)
  assert.deepEqual(names(first), ['a', 'b'])
  const second = pageOf(all, first.nextCursor, 2)
  assert.deepEqual(names(second), ['c', 'd'])
  const third = pageOf(all, second.nextCursor, 2)
  assert.deepEqual(names(third), ['e'])
  assert.equal(third.nextCursor, undefined)
  assert.equal(pageOf(tools('a', 'b'), undefined, 2).nextCursor, undefined)
})

test('tools added or removed between pages: none that stays is repeated or skipped', () => {
  const first = pageOf(tools('a', 'b', 'c', 'd'), undefined, 2)
  // b went away and a0 arrived before the cursor; c and d must still come, once.
  const second = pageOf(tools('a', 'a0', 'c', 'd', 'e'), first.nextCursor, 2)
  assert.deepEqual(names(second), ['c', 'd'])
})

test('a cursor that was not made here is an InvalidParams error saying what to send', () => {
  for (const cursor of ['not-base64-json', Buffer.from('{"after":7}').toString('base64url'), Buffer.from('null').toString('base64url')]) {
    assert.throws(() => pageOf(tools('a'), cursor, 2), (err: unknown) => {
      assert.ok(err instanceof ProtocolError)
      assert.equal(err.code, ProtocolErrorCode.InvalidParams)
      assert.match(err.message, /invalid cursor.*nextCursor of the previous tools\/list/)
      return true
    })
  }
})
