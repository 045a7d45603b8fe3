// closestNames: the valid names a mistyped one most likely meant, for warnings and error messages.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { closestNames } from '../../src/shared/closest-names.ts'

const TOOLSETS = ['all', 'debugging', 'file', 'mcp-github', 'safe', 'terminal', 'web']

test('typos find what they meant: swapped, missing, extra or wrong letters, any case', () => {
  assert.deepEqual(closestNames('fiel', TOOLSETS), ['file'])
  assert.deepEqual(closestNames('webb', TOOLSETS), ['web'])
  assert.deepEqual(closestNames('terminl', TOOLSETS), ['terminal'])
  assert.deepEqual(closestNames('Debuging', TOOLSETS), ['debugging'])
  assert.deepEqual(closestNames('mcp-gihtub', TOOLSETS), ['mcp-github'])
})

test('nothing close: no suggestion, rather than a random one; best first, at most `limit`', () => {
  assert.deepEqual(closestNames('database', TOOLSETS), [])
  assert.deepEqual(closestNames('', TOOLSETS), [])
  assert.deepEqual(closestNames('sale', ['safe', 'sane', 'same', 'sage', 'salt']), ['safe', 'sage', 'salt'])
  assert.deepEqual(closestNames('sale', ['safe', 'sale2', 'sa']), ['safe', 'sale2'])
})
