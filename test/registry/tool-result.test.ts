import { test } from 'node:test'
import assert from 'node:assert/strict'
import { isErrorResult, toolError, toolResult } from '../../src/registry/tool-result.ts'

test('toolResult is JSON that keeps non-ASCII text as is', () => {
  assert.equal(toolResult({ text: 'héllo 世界 🎉' }), '{"text":"héllo 世界 🎉"}')
  assert.equal(toolResult(undefined), 'null')
  assert.equal(toolResult([1, 'a']), '[1,"a"]')
})

test('toolError puts the message under error, after any extra fields', () => {
  assert.equal(toolError('boom'), '{"error":"boom"}')
  assert.deepEqual(JSON.parse(toolError('boom', { path: 'x', error: 'ignored' })), { path: 'x', error: 'boom' })
})

test('isErrorResult recognises only objects with a truthy error field', () => {
  assert.equal(isErrorResult(toolError('x')), true)
  assert.equal(isErrorResult('  {"error": "x"}'), true)
  assert.equal(isErrorResult('{"error": ""}'), false)
  assert.equal(isErrorResult('{"error": null}'), false)
  assert.equal(isErrorResult('{"result": "error"}'), false)
  assert.equal(isErrorResult('["error"]'), false)
  assert.equal(isErrorResult('{"error": broken'), false)
  assert.equal(isErrorResult('plain text mentioning "error"'), false)
  assert.equal(isErrorResult(''), false)
})
