// Tests of validateArguments alone: every failing path named, compiled once per schema object,
// invalid schemas reported, shared $id harmless, untrusted (MCP) schemas stop at the first error.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { validateArguments } from '../../src/json-schema/validate.ts'
import type { JsonSchema } from '../../src/registry/types.ts'

function schema (): JsonSchema {
  return {
    type: 'object',
    properties: {
      count: { type: 'integer' },
      name: { type: 'string' },
      mode: { enum: ['fast', 'slow'] },
      nested: { type: 'object', properties: { depth: { type: 'integer', minimum: 0 } } }
    },
    required: ['count', 'name']
  }
}

test('valid arguments pass', () => {
  assert.deepEqual(validateArguments({ count: 1, name: 'a', mode: 'fast' }, schema()), { valid: true })
})

test('the message names every failing path, the missing required one included', () => {
  const result = validateArguments({ count: 'many', mode: 'medium', nested: { depth: -1 } }, schema())
  assert.equal(result.valid, false)
  if (result.valid) return
  assert.deepEqual(new Set(result.paths), new Set(['/count', '/name', '/mode', '/nested/depth']))
  assert.match(result.message, /^invalid arguments: /)
  assert.match(result.message, /\/count: must be integer/)
  assert.match(result.message, /\/name: is required/)
  assert.match(result.message, /\/mode: must be equal to one of the allowed values \("fast", "slow"\)/)
  assert.match(result.message, /\/nested\/depth: must be >= 0/)
})

test('two wrong fields: both paths in the message', () => {
  const result = validateArguments({ count: 'x', name: 3 }, schema())
  assert.equal(result.valid, false)
  if (result.valid) return
  assert.match(result.message, /\/count: must be integer/)
  assert.match(result.message, /\/name: must be string/)
})

test('additionalProperties: false names the extra property', () => {
  const strict = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }
  const result = validateArguments({ a: 'x', extra: 1 }, strict)
  assert.equal(result.valid, false)
  if (result.valid) return
  assert.deepEqual(result.paths, ['/extra'])
  assert.match(result.message, /\/extra: is not an allowed property/)
})

test('a root-level failure is reported at "/"', () => {
  const result = validateArguments({ a: 1 }, { type: 'object', maxProperties: 0 })
  assert.equal(result.valid, false)
  if (result.valid) return
  assert.deepEqual(result.paths, ['/'])
  assert.match(result.message, /\/: must NOT have more than 0 properties/)
})

test('formats are checked (ajv-formats)', () => {
  const withFormat = { type: 'object', properties: { url: { type: 'string', format: 'uri' } } }
  assert.deepEqual(validateArguments({ url: 'https://example.com/x' }, withFormat), { valid: true })
  const result = validateArguments({ url: 'not a uri' }, withFormat)
  assert.equal(result.valid, false)
  if (!result.valid) assert.match(result.message, /\/url: must match format "uri"/)
})

test('each schema object is compiled once: later changes to the same object are not seen', () => {
  const shared = { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] } as JsonSchema
  assert.deepEqual(validateArguments({ a: 1 }, shared), { valid: true })
  // Were it compiled again, requiring "b" would now fail these arguments.
  shared.required = ['b']
  assert.deepEqual(validateArguments({ a: 1 }, shared), { valid: true })
  // A fresh object with the same content is compiled on its own and does see "b".
  const fresh = { type: 'object', properties: { a: { type: 'integer' } }, required: ['b'] }
  assert.equal(validateArguments({ a: 1 }, fresh).valid, false)
})

test('an invalid schema is reported as such, not thrown, and stays reported', () => {
  const broken = { type: 'object', properties: { a: { type: 'nonsense' } } }
  const first = validateArguments({ a: 1 }, broken)
  assert.equal(first.valid, false)
  if (first.valid) return
  assert.match(first.message, /^the tool's parameter schema is invalid: /)
  assert.match(first.message, /properties\/a\/type/)
  assert.deepEqual(first.paths, [])
  assert.deepEqual(validateArguments({ a: 1 }, broken), first)
})

test('an unresolvable $ref is a schema error, not a throw', () => {
  const result = validateArguments({}, { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } })
  assert.equal(result.valid, false)
  if (!result.valid) assert.match(result.message, /schema is invalid/)
})

test('two schemas with the same $id are both compiled and each validates by its own rules', () => {
  const first = { $id: 'https://tools.example/args.json', type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] }
  const second = { $id: 'https://tools.example/args.json', type: 'object', properties: { b: { type: 'string' } }, required: ['b'] }
  assert.deepEqual(validateArguments({ a: 1 }, first), { valid: true })
  assert.deepEqual(validateArguments({ b: 'x' }, second), { valid: true })
  const wrong = validateArguments({ a: 1 }, second)
  assert.equal(wrong.valid, false)
  if (!wrong.valid) assert.deepEqual(wrong.paths, ['/b'])
  assert.equal(validateArguments({ b: 'x' }, first).valid, false)
})

test('local $refs and $defs resolve', () => {
  const withDefs = {
    type: 'object',
    $defs: { pos: { type: 'integer', minimum: 1 } },
    properties: { n: { $ref: '#/$defs/pos' } }
  }
  assert.deepEqual(validateArguments({ n: 3 }, withDefs), { valid: true })
  const result = validateArguments({ n: 0 }, withDefs)
  assert.equal(result.valid, false)
  if (!result.valid) assert.deepEqual(result.paths, ['/n'])
})

test('unknown keywords (examples, x-*) are tolerated', () => {
  const loose = { type: 'object', 'x-ui': { widget: 'slider' }, properties: { a: { type: 'string', examples: ['x'], 'x-hint': 1 } } }
  assert.deepEqual(validateArguments({ a: 'b' }, loose), { valid: true })
})

test('an untrusted (MCP) schema reports the first failure only', () => {
  const result = validateArguments({ count: 'x', name: 3 }, schema(), false)
  assert.equal(result.valid, false)
  if (result.valid) return
  assert.equal(result.paths.length, 1)
})

test('one schema object used trusted and untrusted keeps one validator per trust level', () => {
  const shared = schema()
  const trusted = validateArguments({ count: 'x', name: 3 }, shared)
  const untrusted = validateArguments({ count: 'x', name: 3 }, shared, false)
  assert.equal(trusted.valid, false)
  assert.equal(untrusted.valid, false)
  if (trusted.valid || untrusted.valid) return
  assert.equal(trusted.paths.length, 2)
  assert.equal(untrusted.paths.length, 1)
})

test('the arguments are not modified by validation', () => {
  const args = { count: 1, name: 'a' }
  const withDefault = {
    type: 'object',
    properties: { count: { type: 'integer' }, name: { type: 'string' }, extra: { type: 'string', default: 'd' } }
  }
  validateArguments(args, withDefault)
  assert.deepEqual(args, { count: 1, name: 'a' })
})

test('a schema that declares draft 2020-12 is validated in that dialect (prefixItems honoured)', () => {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] } }
  }
  assert.deepEqual(validateArguments({ pair: ['a', 1] }, schema), { valid: true })
  const bad = validateArguments({ pair: ['a', 'b'] }, schema)
  assert.equal(bad.valid, false)
  if (!bad.valid) assert.deepEqual(bad.paths, ['/pair/1'])
})

test('a schema that declares a dialect Ajv has no meta-schema for still validates (as draft-07)', () => {
  for (const $schema of ['http://json-schema.org/draft-04/schema#', 'https://json-schema.org/draft/2019-09/schema']) {
    const schema = { $schema, type: 'object', properties: { a: { type: 'string' } } }
    assert.deepEqual(validateArguments({ a: 'x' }, schema), { valid: true }, $schema)
    const bad = validateArguments({ a: 1 }, schema)
    assert.equal(bad.valid, false)
    if (!bad.valid) assert.equal(bad.schemaBroken, false, $schema)
  }
})

test('huge arguments: the message names the first failure and says not every value was checked', () => {
  const urls = { type: 'object', properties: { urls: { type: 'array', items: { type: 'string' }, maxItems: 5 } } }
  const result = validateArguments({ urls: Array.from({ length: 500_000 }, () => 1) }, urls)
  assert.equal(result.valid, false)
  if (result.valid) return
  assert.deepEqual(result.paths, ['/urls'])
  assert.equal(result.message, 'invalid arguments: /urls: must NOT have more than 5 items (the first failure found; the arguments hold more than 10000 values, so they were not all checked)')
})

test('arguments just under the report limit still get every failure named', () => {
  const items = { type: 'object', properties: { list: { type: 'array', items: { type: 'string' } } } }
  const result = validateArguments({ list: Array.from({ length: 9_000 }, () => 1) }, items)
  assert.equal(result.valid, false)
  if (result.valid) return
  assert.match(result.message, /\/list\/0: must be string; .*; and 8990 more failures$/)
})
