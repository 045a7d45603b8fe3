// Gemini's schema subset: what is rewritten, what is dropped, and what is refused with its reason.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { geminiParameters } from '../../src/definitions/formats/gemini.ts'

function gemini (schema: Record<string, unknown>): unknown {
  const rewrite = geminiParameters(schema)
  assert.ok(rewrite.ok, rewrite.ok ? '' : rewrite.reason)
  return rewrite.value
}

function refusal (schema: Record<string, unknown>): string {
  const rewrite = geminiParameters(schema)
  assert.ok(!rewrite.ok, 'expected a refusal')
  return rewrite.reason
}

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra })

test('types upper-case, counts as strings, formats Gemini knows kept, the other keywords dropped', () => {
  assert.deepEqual(gemini({
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    additionalProperties: false,
    properties: {
      path: { type: 'string', description: 'p', minLength: 1, maxLength: 9, pattern: '^a', format: 'uri' },
      when: { type: 'string', format: 'date-time' },
      n: { type: 'integer', minimum: 0, maximum: 5, format: 'int32', multipleOf: 2 },
      list: { type: 'array', items: { type: 'number' }, minItems: 1, maxItems: 3, uniqueItems: true },
      flag: { type: 'boolean', default: false }
    },
    required: ['path', 'ghost']
  }), {
    type: 'OBJECT',
    properties: {
      path: { type: 'STRING', description: 'p', pattern: '^a', minLength: '1', maxLength: '9' },
      when: { type: 'STRING', format: 'date-time' },
      n: { type: 'INTEGER', minimum: 0, maximum: 5, format: 'int32' },
      list: { type: 'ARRAY', items: { type: 'NUMBER' }, minItems: '1', maxItems: '3' },
      flag: { type: 'BOOLEAN' }
    },
    required: ['path']
  })
})

test('null in a type list, an enum or a union becomes nullable; const a one-value enum; oneOf an anyOf', () => {
  assert.deepEqual(gemini(object({
    a: { type: ['string', 'null'] },
    b: { enum: ['x', 'y', null] },
    c: { const: 'fixed' },
    d: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'd' },
    e: { oneOf: [{ type: 'string' }, { type: 'boolean' }] },
    f: { type: ['string', 'integer'] }
  })), {
    type: 'OBJECT',
    properties: {
      a: { type: 'STRING', nullable: true },
      b: { enum: ['x', 'y'], nullable: true, type: 'STRING' },
      c: { enum: ['fixed'], type: 'STRING' },
      d: { type: 'INTEGER', description: 'd', nullable: true },
      e: { anyOf: [{ type: 'STRING' }, { type: 'BOOLEAN' }] },
      f: { anyOf: [{ type: 'STRING' }, { type: 'INTEGER' }] }
    }
  })
})

test('local $refs are inlined, the description beside a $ref wins', () => {
  assert.deepEqual(gemini(object({ at: { $ref: '#/definitions/point', description: 'where' } }, {
    definitions: { point: object({ x: { type: 'number' } }, { required: ['x'], description: 'a point' }) }
  })), {
    type: 'OBJECT',
    properties: { at: { type: 'OBJECT', description: 'where', properties: { x: { type: 'NUMBER' } }, required: ['x'] } }
  })
})

test('a tool without parameters gets none (Gemini refuses an OBJECT without properties)', () => {
  assert.equal(gemini({ type: 'object' }), undefined)
  assert.equal(gemini({ type: 'object', properties: {} }), undefined)
})

test('what Gemini cannot say is refused, naming the place and the reason', () => {
  assert.equal(refusal(object({ tree: { $ref: '#/$defs/node' } }, { $defs: { node: object({ kids: { type: 'array', items: { $ref: '#/$defs/node' } } }) } })),
    'the recursive $ref #/$defs/node cannot be inlined into Gemini\'s schema at /properties/tree/properties/kids/items')
  assert.equal(refusal(object({ r: { $ref: 'https://example.com/s.json' } })), 'the $ref https://example.com/s.json does not point into this schema\'s $defs or definitions at /properties/r')
  assert.equal(refusal(object({ v: {} })), 'a value of any type (no type) cannot be said in Gemini\'s schema at /properties/v')
  assert.equal(refusal(object({ n: { type: 'integer', enum: [1, 2] } })), 'an enum or const of non-string values is not supported in Gemini\'s schema at /properties/n')
  assert.equal(refusal(object({ m: { type: 'object', additionalProperties: { type: 'string' } } })), 'an object without declared properties is not supported in Gemini\'s schema at /properties/m')
  assert.equal(refusal(object({ t: { type: 'array', prefixItems: [{ type: 'string' }] } })), 'tuple arrays are not supported in Gemini\'s schema at /properties/t')
  assert.equal(refusal(object({ a: { allOf: [{ type: 'string' }] } })), 'allOf is not supported in Gemini\'s schema at /properties/a')
  assert.equal(refusal(object({ z: { type: 'null' } })), 'a schema that accepts only null is not supported in Gemini\'s schema at /properties/z')
})
