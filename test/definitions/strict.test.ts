// OpenAI strict-mode rewrite of tool parameters: what is made strict, and what is refused with its reason.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { strictParameters } from '../../src/definitions/formats/strict.ts'

function strict (schema: Record<string, unknown>): Record<string, unknown> {
  const rewrite = strictParameters(schema)
  assert.ok(rewrite.ok, rewrite.ok ? '' : rewrite.reason)
  return rewrite.value
}

function refusal (schema: Record<string, unknown>): string {
  const rewrite = strictParameters(schema)
  assert.ok(!rewrite.ok, 'expected a refusal')
  return rewrite.reason
}

test('every property required, the optional ones nullable, additionalProperties false on every object', () => {
  assert.deepEqual(strict({
    type: 'object',
    properties: {
      path: { type: 'string', description: 'p' },
      offset: { type: 'integer', minimum: 1 },
      mode: { type: 'string', enum: ['a', 'b'] },
      options: { type: 'object', properties: { deep: { type: 'boolean' } }, required: [] },
      tags: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } }, required: ['k'] } }
    },
    required: ['path', 'tags']
  }), {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'p' },
      offset: { type: ['integer', 'null'], minimum: 1 },
      mode: { type: ['string', 'null'], enum: ['a', 'b', null] },
      options: { type: ['object', 'null'], properties: { deep: { type: ['boolean', 'null'] } }, required: ['deep'], additionalProperties: false },
      tags: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } }, required: ['k'], additionalProperties: false } }
    },
    required: ['path', 'offset', 'mode', 'options', 'tags'],
    additionalProperties: false
  })
})

test('a property that already allows null is required as it is; $ref, const and unions get a null branch', () => {
  assert.deepEqual(strict({
    type: 'object',
    $defs: { point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
    properties: {
      maybe: { type: ['string', 'null'] },
      at: { $ref: '#/$defs/point', description: 'where' },
      kind: { const: 'fixed' },
      either: { oneOf: [{ type: 'string' }, { type: 'integer' }] }
    }
  }), {
    type: 'object',
    properties: {
      maybe: { type: ['string', 'null'] },
      at: { description: 'where', anyOf: [{ $ref: '#/$defs/point' }, { type: 'null' }] },
      kind: { anyOf: [{ const: 'fixed' }, { type: 'null' }] },
      either: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] }
    },
    required: ['maybe', 'at', 'kind', 'either'],
    additionalProperties: false,
    $defs: { point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'], additionalProperties: false } }
  })
})

test('keywords strict mode lacks are dropped (the gateway still checks them); supported formats are kept', () => {
  assert.deepEqual(strict({
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 9, format: 'email', default: 'x', examples: ['y'] },
      site: { type: 'string', format: 'uri' },
      n: { type: 'number', multipleOf: 2, exclusiveMaximum: 9, not: { const: 4 } }
    },
    required: ['name', 'site', 'n'],
    additionalProperties: false
  }), {
    type: 'object',
    properties: {
      name: { type: 'string', format: 'email' },
      site: { type: 'string' },
      n: { type: 'number', multipleOf: 2, exclusiveMaximum: 9 }
    },
    required: ['name', 'site', 'n'],
    additionalProperties: false
  })
})

test('a tool without parameters is strict with an empty object', () => {
  assert.deepEqual(strict({ type: 'object' }), { type: 'object', properties: {}, required: [], additionalProperties: false })
  assert.deepEqual(strict({ type: 'object', properties: {} }), { type: 'object', properties: {}, required: [], additionalProperties: false })
})

test('what cannot be made strict is refused, naming the place and the reason', () => {
  assert.equal(refusal({ type: 'object', properties: { env: { type: 'object', additionalProperties: { type: 'string' } } } }),
    'an object open to any property (additionalProperties) cannot be strict at /properties/env')
  assert.equal(refusal({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true }),
    'an object open to any property (additionalProperties) cannot be strict at the root')
  assert.equal(refusal({ type: 'object', properties: { m: { type: 'object' } } }),
    'an object without declared properties cannot be strict at /properties/m')
  assert.equal(refusal({ type: 'object', properties: { m: { type: 'object', properties: { a: { type: 'string' } }, patternProperties: { '^x': {} } } } }),
    'patternProperties is not supported by strict mode at /properties/m')
  assert.equal(refusal({ type: 'object', properties: { v: {} } }), 'a value of any type (no type) cannot be strict at /properties/v')
  assert.equal(refusal({ type: 'object', properties: { v: true } }), 'a value of any type cannot be strict at /properties/v')
  assert.equal(refusal({ type: 'object', properties: { v: { allOf: [{ type: 'string' }] } } }), 'allOf is not supported by strict mode at /properties/v')
  assert.equal(refusal({ type: 'object', properties: { t: { type: 'array', items: [{ type: 'string' }] } } }), 'tuple arrays are not supported by strict mode at /properties/t')
  assert.equal(refusal({ type: 'object', properties: { 'a/b': { type: 'array' } } }), 'an array of values of any type cannot be strict at /properties/a~1b')
  let deep: Record<string, unknown> = { type: 'string' }
  for (let i = 0; i < 11; i++) deep = { type: 'object', properties: { d: deep }, required: ['d'] }
  assert.match(refusal(deep), /nesting deeper than the 10 levels strict mode allows/)
})
