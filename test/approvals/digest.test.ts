// What an approval is bound to: the digest of the tool, the validated arguments and the caller, in
// canonical JSON (key order does not matter, anything else does); and which tools need approval.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { approvalDigest, needsApproval } from '../../src/dispatch/call/approval.ts'
import { canonicalJson } from '../../src/shared/canonical-json.ts'
import type { ToolEntry } from '../../src/registry/types.ts'

test('the digest ignores key order and binds the tool, every argument and the caller', () => {
  assert.equal(canonicalJson({ b: [1, { d: 1, c: 2 }], a: 'x', skipped: undefined }), '{"a":"x","b":[1,{"c":2,"d":1}]}')
  const base = approvalDigest('wipe', { path: '/srv', depth: 2 }, 'alice')
  assert.equal(approvalDigest('wipe', { depth: 2, path: '/srv' }, 'alice'), base)
  for (const other of [
    approvalDigest('wipe', { path: '/srv', depth: 3 }, 'alice'),
    approvalDigest('wipe', { path: '/srv', depth: '2' }, 'alice'),
    approvalDigest('wipe', { path: '/srv', depth: 2, more: null }, 'alice'),
    approvalDigest('wipe', { path: '/srv', depth: 2 }, 'bob'),
    approvalDigest('wipe2', { path: '/srv', depth: 2 }, 'alice')
  ]) assert.notEqual(other, base)
  assert.equal(approvalDigest('wipe', {}, undefined), approvalDigest('wipe', {}, 'anonymous'))
})

test('tools need approval by name, or by a hint as MCP reads it (undeclared: cautious), never when readOnly', () => {
  const entry = (name: string, annotations: ToolEntry['annotations']): ToolEntry => ({ name, annotations }) as unknown as ToolEntry
  assert.equal(needsApproval(entry('wipe', {}), { approval: ['wipe'] }), true)
  assert.equal(needsApproval(entry('look', {}), { approval: ['wipe'] }), false)
  assert.equal(needsApproval(entry('look', {}), undefined), false)
  const destructive = { approval: { annotations: ['destructive'] } }
  assert.equal(needsApproval(entry('drop', {}), destructive), true, 'an undeclared hint is destructive')
  assert.equal(needsApproval(entry('add', { destructive: false }), destructive), false)
  assert.equal(needsApproval(entry('read', { readOnly: true }), destructive), false)
  assert.equal(needsApproval(entry('fetch', { destructive: false }), { approval: { annotations: ['openWorld'] } }), true)
  assert.equal(needsApproval(entry('local', { openWorld: false, destructive: false }), { approval: { tools: ['other'], annotations: ['openWorld', 'destructive'] } }), false)
})
