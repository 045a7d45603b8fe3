import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { coerceArguments } from '../../src/json-schema/coerce.ts'
import { validateArguments } from '../../src/json-schema/validate.ts'
import { normalizeInputSchema, rewriteDefinitionsPointer } from '../../src/json-schema/normalize.ts'
import type { JsonSchema } from '../../src/registry/types.ts'

function normalized (input: unknown): JsonSchema {
  const result = normalizeInputSchema(input)
  assert.ok(result.ok, `expected a schema, got: ${result.ok ? '' : result.reason}`)
  return result.schema
}

const EMPTY = { type: 'object', properties: {} }

const TABLE: Array<[string, unknown, JsonSchema]> = [
  ['missing schema → empty object schema', undefined, EMPTY],
  ['null → empty object schema', null, EMPTY],
  ['an array → empty object schema', [1, 2], EMPTY],
  ['top level without type → object', { properties: { a: { type: 'string' } } },
    { type: 'object', properties: { a: { type: 'string' } } }],
  ['top level of another type forced to object', { type: 'string' }, EMPTY],
  ['top level type list containing object → object', { type: ['object', 'null'], properties: {} }, EMPTY],
  ['required names without a property are dropped',
    { type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'ghost', 7, 'a'] },
    { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }],
  ['an empty required list disappears', { type: 'object', properties: {}, required: ['x'] }, EMPTY],
  ['nested objects with properties but no type get type object',
    { type: 'object', properties: { o: { properties: { n: { type: 'number' } }, required: ['n', 'm'] } } },
    { type: 'object', properties: { o: { properties: { n: { type: 'number' } }, required: ['n'], type: 'object' } } }],
  ['definitions become $defs and refs follow',
    { type: 'object', properties: { p: { $ref: '#/definitions/P' } }, definitions: { P: { type: 'string' } } },
    { type: 'object', properties: { p: { $ref: '#/$defs/P' } }, $defs: { P: { type: 'string' } } }],
  ['a property called "definitions" is not renamed',
    { type: 'object', properties: { definitions: { type: 'string' }, r: { $ref: '#/properties/definitions' } } },
    { type: 'object', properties: { definitions: { type: 'string' }, r: { $ref: '#/properties/definitions' } } }],
  ['nullable anyOf with a simple type collapses to a type list',
    { type: 'object', properties: { s: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'd' } } },
    { type: 'object', properties: { s: { type: ['string', 'null'], description: 'd' } } }],
  ['an optional anyOf [T, null] with default null collapses to T',
    { type: 'object', properties: { s: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null, description: 'd' } } },
    { type: 'object', properties: { s: { type: 'string', description: 'd' } } }],
  ['a required anyOf [T, null] with default null keeps null (the caller must say it)',
    { type: 'object', properties: { s: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null } }, required: ['s'] },
    { type: 'object', properties: { s: { type: ['string', 'null'], default: null } }, required: ['s'] }],
  ['an optional anyOf [T, null] with another default keeps null',
    { type: 'object', properties: { s: { anyOf: [{ type: 'string' }, { type: 'null' }], default: 'x' } } },
    { type: 'object', properties: { s: { type: ['string', 'null'], default: 'x' } } }],
  ['optional nullable unions with default null collapse to T in nested array items too',
    { type: 'object', properties: { rows: { type: 'array', items: { type: 'object', properties: { n: { anyOf: [{ type: 'integer' }, { type: 'null' }], default: null }, e: { anyOf: [{ enum: ['a', 'b'], type: 'string' }, { type: 'null' }], default: null } } } } } },
    { type: 'object', properties: { rows: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer' }, e: { type: 'string', enum: ['a', 'b'] } } } } } }],
  ['object items without properties get properties: {}',
    { type: 'object', properties: { list: { type: 'array', items: { type: 'object' } }, deep: { type: 'array', items: { type: 'array', items: { type: 'object', additionalProperties: { type: 'string' } } } } } },
    { type: 'object', properties: { list: { type: 'array', items: { type: 'object', properties: {} } }, deep: { type: 'array', items: { type: 'array', items: { type: 'object', additionalProperties: { type: 'string' }, properties: {} } } } } }],
  ['null first, oneOf, and an enum gains null',
    { type: 'object', properties: { e: { oneOf: [{ type: 'null' }, { type: 'string', enum: ['a', 'b'] }] } } },
    { type: 'object', properties: { e: { type: ['string', 'null'], enum: ['a', 'b', null] } } }],
  ['a const branch becomes an enum with null',
    { type: 'object', properties: { c: { anyOf: [{ type: 'string', const: 'x' }, { type: 'null' }] } } },
    { type: 'object', properties: { c: { type: ['string', 'null'], enum: ['x', null] } } }],
  ['a nullable $ref keeps its anyOf (coercion and Ajv understand the null branch)',
    { type: 'object', properties: { r: { anyOf: [{ $ref: '#/$defs/R' }, { type: 'null' }] } }, $defs: { R: { type: 'integer' } } },
    { type: 'object', properties: { r: { anyOf: [{ $ref: '#/$defs/R' }, { type: 'null' }] } }, $defs: { R: { type: 'integer' } } }],
  ['a three-branch union is left alone',
    { type: 'object', properties: { u: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] } } },
    { type: 'object', properties: { u: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] } } }],
  ['$id is stripped everywhere, nested $schema too; the top $schema stays',
    { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'https://evil.example/s', type: 'object', properties: { a: { $id: 'x', $schema: 'y', type: 'string' } } },
    { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { a: { type: 'string' } } }],
  ['remote $refs are removed',
    { type: 'object', properties: { a: { $ref: 'https://evil.example/schema.json' }, b: { $ref: 'other.json#/x' } } },
    { type: 'object', properties: { a: {}, b: {} } }],
  ['an unresolvable local $ref is removed',
    { type: 'object', properties: { a: { $ref: '#/$defs/Missing', description: 'kept' } } },
    { type: 'object', properties: { a: { description: 'kept' } } }],
  ['a bare top-level $ref is inlined',
    { $ref: '#/$defs/Args', $defs: { Args: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } },
    { type: 'object', properties: { q: { type: 'string' } }, required: ['q'], $defs: { Args: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } }],
  ['unknown types and invalid patterns are dropped',
    { type: 'object', properties: { a: { type: 'strnig', pattern: '([a-' }, b: { type: ['string', 'bogus'] } } },
    { type: 'object', properties: { a: {}, b: { type: ['string'] } } }],
  ['boolean subschemas are kept',
    { type: 'object', properties: { any: true }, additionalProperties: false },
    { type: 'object', properties: { any: true }, additionalProperties: false }],
  ['a non-schema where a schema belongs becomes {}',
    { type: 'object', properties: { a: 'string' } },
    { type: 'object', properties: { a: {} } }],
  ['__proto__ keys never make it through',
    JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"ok":{"type":"string","default":{"__proto__":{"polluted":true}}}},"required":["__proto__"]}'),
    { type: 'object', properties: { ok: { type: 'string', default: {} } } }]
]

for (const [name, input, expected] of TABLE) {
  test(`normalise: ${name}`, () => {
    const schema = normalized(input)
    assert.deepEqual(schema, expected)
    assert.equal(Object.getPrototypeOf(schema), Object.prototype)
    // Whatever it produced must compile in the validator the dispatcher uses for MCP tools.
    const result = validateArguments({}, schema, false)
    assert.ok(result.valid || !result.schemaBroken, `schema does not compile: ${JSON.stringify(result)}`)
  })
}

test('definitions refs are rewritten only where a keyword is expected', () => {
  assert.equal(rewriteDefinitionsPointer('#/definitions/A'), '#/$defs/A')
  assert.equal(rewriteDefinitionsPointer('#/properties/x/definitions/A'), '#/properties/x/$defs/A')
  assert.equal(rewriteDefinitionsPointer('#/properties/definitions'), '#/properties/definitions')
  assert.equal(rewriteDefinitionsPointer('#/items/definitions/A'), '#/items/$defs/A')
  assert.equal(rewriteDefinitionsPointer('#/items/0/definitions/A'), '#/items/0/$defs/A')
  assert.equal(rewriteDefinitionsPointer('#/anyOf/1/definitions/A'), '#/anyOf/1/$defs/A')
  assert.equal(rewriteDefinitionsPointer('#/default/definitions'), '#/default/definitions')
  assert.equal(rewriteDefinitionsPointer('#anchor'), '#anchor')
})

test('a collapsed nullable property accepts null in validation and "null" in coercion', () => {
  const schema = normalized({ type: 'object', properties: { n: { anyOf: [{ type: 'integer' }, { type: 'null' }] } }, required: ['n'] })
  assert.deepEqual(validateArguments({ n: null }, schema, false), { valid: true })
  assert.deepEqual(validateArguments({ n: 3 }, schema, false), { valid: true })
  assert.equal(validateArguments({ n: 'x' }, schema, false).valid, false)
  assert.deepEqual(coerceArguments({ n: 'null' }, schema), { n: null })
  assert.deepEqual(coerceArguments({ n: '4' }, schema), { n: 4 })
})

test('the copy shares nothing with the input, and changing it leaves the input alone', () => {
  const input = { type: 'object', properties: { a: { type: 'string', enum: ['x'] } }, required: ['a'], $defs: { D: { type: 'object', properties: {} } } }
  const before = structuredClone(input)
  const schema = normalized(input)
  const seen = new Set<unknown>()
  const collect = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return
    seen.add(value)
    for (const item of Object.values(value)) collect(item)
  }
  collect(input)
  const check = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return
    assert.ok(!seen.has(value), 'an object of the input is reused in the output')
    for (const item of Object.values(value)) check(item)
  }
  check(schema)
  ;((schema.properties as Record<string, Record<string, unknown>>).a.enum as unknown[]).push('y')
  assert.deepEqual(input, before)
})

test('too deep, too many nodes or too many characters: refused with a reason, no throw', () => {
  let deep: Record<string, unknown> = { type: 'string' }
  for (let i = 0; i < 100; i++) deep = { type: 'object', properties: { x: deep } }
  const tooDeep = normalizeInputSchema(deep)
  assert.equal(tooDeep.ok, false)
  assert.match(!tooDeep.ok ? tooDeep.reason : '', /nested deeper than 64 levels/)

  const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`p${i}`, { type: 'string' }])) }
  const tooWide = normalizeInputSchema(wide)
  assert.equal(tooWide.ok, false)
  assert.match(!tooWide.ok ? tooWide.reason : '', /more than 20000 nodes/)

  const huge = normalizeInputSchema({ type: 'object', description: 'x'.repeat(2_000_000) })
  assert.equal(huge.ok, false)
  assert.match(!huge.ok ? huge.reason : '', /more than 1000000 characters/)

  const cyclic: Record<string, unknown> = { type: 'object', properties: {} }
  ;(cyclic.properties as Record<string, unknown>).self = cyclic
  assert.equal(normalizeInputSchema(cyclic).ok, false, 'a cycle (possible in-process) ends at the depth limit')
})

test('never throws, whatever it is given, and always answers an object schema (property)', () => {
  fc.assert(fc.property(fc.anything({ maxDepth: 6 }), (input) => {
    const result = normalizeInputSchema(input)
    if (result.ok) {
      assert.equal(result.schema.type, 'object')
      assert.equal(typeof result.schema.properties, 'object')
    }
  }), { numRuns: 300 })
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 6 }), (input) => {
    const result = normalizeInputSchema({ type: 'object', properties: { a: input, b: { anyOf: [input, { type: 'null' }] } }, definitions: { d: input } })
    assert.ok(result.ok)
    const compiled = validateArguments({}, result.schema, false)
    assert.ok(compiled.valid || !compiled.schemaBroken, `schema does not compile: ${JSON.stringify(compiled)}`)
  }), { numRuns: 300 })
})
