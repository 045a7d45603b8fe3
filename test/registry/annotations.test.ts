// Tool annotations: hints a tool declares about its behaviour (read-only, destructive, idempotent,
// open world), checked at registration, kept frozen on the entry, and mapped to and from the names
// MCP uses (readOnlyHint, ...), which is how an MCP client and an upstream MCP server speak of them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ToolRegistry } from '../../src/registry/registry.ts'
import { annotationsFromMcp, mcpToolAnnotations } from '../../src/registry/annotations.ts'
import type { ToolAnnotations } from '../../src/registry/types.ts'
import { fixtureTool } from '../helpers/tools.ts'

test('a registration keeps its annotations on the entry, copied and frozen', () => {
  const registry = new ToolRegistry()
  const declared: ToolAnnotations = { readOnly: false, destructive: true, idempotent: true, openWorld: false, title: 'Write a file' }
  const entry = registry.register(fixtureTool('write', { annotations: declared }))
  assert.deepEqual(entry.annotations, { readOnly: false, destructive: true, idempotent: true, openWorld: false, title: 'Write a file' })
  assert.ok(Object.isFrozen(entry.annotations))
  declared.destructive = false
  assert.equal(entry.annotations.destructive, true, 'a later change to the caller\'s object does not reach the entry')
  assert.throws(() => { (entry.annotations as { readOnly?: boolean }).readOnly = true }, TypeError)
})

test('a tool that declares nothing has empty annotations: every hint takes the MCP default', () => {
  const registry = new ToolRegistry()
  const entry = registry.register(fixtureTool('plain'))
  assert.deepEqual(entry.annotations, {})
  assert.ok(Object.isFrozen(entry.annotations))
  assert.equal(mcpToolAnnotations(entry), undefined, 'nothing declared: the MCP tool carries no annotations')
})

test('wrong types, unknown names and a non-object are refused with an error naming the tool and the field', () => {
  const registry = new ToolRegistry()
  const cases: Array<[unknown, RegExp]> = [
    [{ readOnly: 'yes' }, /tool "bad": .*annotations\.readOnly must be a boolean \(got "yes"\)/],
    [{ destructive: 1 }, /annotations\.destructive must be a boolean \(got 1\)/],
    [{ idempotent: null }, /annotations\.idempotent must be a boolean \(got null\)/],
    [{ openWorld: 'false' }, /annotations\.openWorld must be a boolean \(got "false"\)/],
    [{ title: 42 }, /annotations\.title must be a string \(got 42\)/],
    [{ readOnlyHint: true }, /annotations\.readOnlyHint is not an annotation \(known: readOnly, destructive, idempotent, openWorld, title\)/],
    [true, /annotations must be an object/],
    [['readOnly'], /annotations must be an object/]
  ]
  for (const [annotations, message] of cases) {
    assert.throws(() => registry.register(fixtureTool('bad', { annotations: annotations as never })), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'GW_ERR_INVALID_TOOL')
      assert.match(err.message, message)
      return true
    }, JSON.stringify(annotations))
  }
  assert.throws(() => registry.register(fixtureTool('bad', { annotations: { readOnly: 1, openWorld: 0 } as never })),
    /annotations\.readOnly must be a boolean \(got 1\); annotations\.openWorld must be a boolean \(got 0\)/, 'every problem at once')
  assert.equal(registry.getEntry('bad'), undefined)
})

test('mcpToolAnnotations gives the MCP names, only for what the tool declared', () => {
  const registry = new ToolRegistry()
  const full = registry.register(fixtureTool('full', { annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: true, title: 'Full' } }))
  assert.deepEqual(mcpToolAnnotations(full), { title: 'Full', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true })
  const partial = registry.register(fixtureTool('partial', { annotations: { readOnly: true, openWorld: false } }))
  assert.deepEqual(mcpToolAnnotations(partial), { readOnlyHint: true, openWorldHint: false },
    'an undeclared hint is left out, so the client applies the spec default instead of a guess of ours')
})

test('annotationsFromMcp keeps the hints a server gave and drops what is not a hint of the right type', () => {
  assert.deepEqual(annotationsFromMcp({ title: 'Echo', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }),
    { title: 'Echo', readOnly: true, destructive: false, idempotent: true, openWorld: false })
  assert.deepEqual(annotationsFromMcp({ readOnlyHint: 'yes', destructiveHint: true, openWorldHint: null, title: 7, extra: true }), { destructive: true },
    'a server\'s wrong types are not the tool\'s fault: they are dropped, the tool is still served')
  assert.equal(annotationsFromMcp({ title: 't'.repeat(10_000) }).title, `${'t'.repeat(200)}…`, 'a server\'s title is bounded')
  assert.deepEqual(annotationsFromMcp(undefined), {})
  assert.deepEqual(annotationsFromMcp('not an object'), {})
  const registry = new ToolRegistry()
  const round = registry.register(fixtureTool('round', { annotations: annotationsFromMcp({ readOnlyHint: false, destructiveHint: true }) }))
  assert.deepEqual(mcpToolAnnotations(round), { readOnlyHint: false, destructiveHint: true }, 'the round trip keeps them as given')
})
