// Table-driven tests of argument coercion, one row per rule of REFERENCE §7, plus the safety guarantees.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { coerceArguments } from '../../src/json-schema/coerce.ts'
import type { JsonSchema } from '../../src/registry/types.ts'

interface Row {
  name: string
  /** The schema of the single argument `v`, or a whole parameters schema when `root` is set. */
  schema: unknown
  input: unknown
  expected: unknown
  root?: boolean
}

const integer = { type: 'integer' }
const number = { type: 'number' }
const boolean = { type: 'boolean' }

const rows: Row[] = [
  // integer / number from a string
  { name: 'integer from a string', schema: integer, input: '42', expected: 42 },
  { name: 'integer from a padded negative string', schema: integer, input: ' -7 ', expected: -7 },
  { name: 'integral float string to integer', schema: integer, input: '3.0', expected: 3 },
  { name: 'integral float string to number', schema: number, input: '3.0', expected: 3 },
  { name: 'exponent string to integer', schema: integer, input: '1e3', expected: 1000 },
  { name: 'exponent string to number', schema: number, input: '1e3', expected: 1000 },
  { name: 'non-integral string to number', schema: number, input: '2.5', expected: 2.5 },
  { name: 'non-integral string stays for integer', schema: integer, input: '2.5', expected: '2.5' },
  { name: 'leading-dot decimal to number', schema: number, input: '.5', expected: 0.5 },
  { name: '"-0" becomes 0, not -0', schema: integer, input: '-0', expected: 0 },
  { name: 'inf stays a string', schema: number, input: 'inf', expected: 'inf' },
  { name: '-inf stays a string', schema: number, input: '-inf', expected: '-inf' },
  { name: 'nan stays a string', schema: number, input: 'nan', expected: 'nan' },
  { name: 'NaN stays a string', schema: number, input: 'NaN', expected: 'NaN' },
  { name: 'Infinity stays a string', schema: number, input: 'Infinity', expected: 'Infinity' },
  { name: '-Infinity stays a string for integer', schema: integer, input: '-Infinity', expected: '-Infinity' },
  { name: 'overflow to infinity stays a string', schema: number, input: '1e400', expected: '1e400' },
  { name: 'underflow to zero stays a string', schema: number, input: '1e-400', expected: '1e-400' },
  { name: 'hex stays a string', schema: integer, input: '0x10', expected: '0x10' },
  { name: 'empty string stays', schema: integer, input: '', expected: '' },
  { name: 'blank string stays', schema: number, input: '   ', expected: '   ' },
  { name: 'word stays a string', schema: integer, input: 'abc', expected: 'abc' },
  { name: 'trailing garbage stays', schema: integer, input: '12px', expected: '12px' },
  { name: 'integer beyond 2^53 stays a string', schema: integer, input: '9007199254740993', expected: '9007199254740993' },
  { name: 'integral number beyond 2^53 stays a string', schema: number, input: '1e20', expected: '1e20' },
  { name: 'largest safe integer converts', schema: integer, input: '9007199254740991', expected: 9007199254740991 },
  { name: 'an integer already of type integer stays', schema: integer, input: 5, expected: 5 },
  { name: 'a float in an integer slot is not touched', schema: integer, input: 2.5, expected: 2.5 },
  { name: 'a boolean in a number slot is not converted', schema: number, input: true, expected: true },

  // boolean from a string
  { name: '"true" to true', schema: boolean, input: 'true', expected: true },
  { name: '"TRUE" to true', schema: boolean, input: 'TRUE', expected: true },
  { name: '" false " to false', schema: boolean, input: ' false ', expected: false },
  { name: '"1" stays for boolean', schema: boolean, input: '1', expected: '1' },
  { name: '"yes" stays for boolean', schema: boolean, input: 'yes', expected: 'yes' },
  { name: 'number 1 stays for boolean', schema: boolean, input: 1, expected: 1 },

  // array / object from a JSON string
  { name: 'JSON array string to array', schema: { type: 'array' }, input: '[1, "a"]', expected: [1, 'a'] },
  { name: 'JSON object string to object', schema: { type: 'object' }, input: ' {"a": 1} ', expected: { a: 1 } },
  { name: 'JSON array string stays for object', schema: { type: 'object' }, input: '[1]', expected: '[1]' },
  { name: 'JSON null string stays for object', schema: { type: 'object' }, input: 'null', expected: 'null' },
  { name: 'broken JSON stays for object', schema: { type: 'object' }, input: '{"a":', expected: '{"a":' },
  // "{}" parses, but not to an array: the parse is refused and the bare-value rule wraps the string.
  { name: '"{}" for an array is wrapped, not parsed', schema: { type: 'array' }, input: '{}', expected: ['{}'] },
  {
    name: '"{}" for an array of objects is wrapped, then the item parsed',
    schema: { type: 'array', items: { type: 'object' } },
    input: '{}',
    expected: [{}]
  },

  // bare value where an array is expected
  { name: 'bare number wrapped', schema: { type: 'array' }, input: 5, expected: [5] },
  { name: 'bare string wrapped', schema: { type: 'array' }, input: 'a', expected: ['a'] },
  { name: 'bare object wrapped', schema: { type: 'array' }, input: { a: 1 }, expected: [{ a: 1 }] },
  { name: 'null kept where an array is expected', schema: { type: 'array' }, input: null, expected: null },
  {
    name: 'wrapped value coerced by items',
    schema: { type: 'array', items: integer },
    input: '5',
    expected: [5]
  },

  // "null" only where null is allowed
  { name: '"null" to null with type [integer, null]', schema: { type: ['integer', 'null'] }, input: 'null', expected: null },
  { name: '" NULL " to null with nullable: true', schema: { type: 'integer', nullable: true }, input: ' NULL ', expected: null },
  {
    name: '"null" to null with an anyOf null branch',
    schema: { anyOf: [integer, { type: 'null' }] },
    input: 'Null',
    expected: null
  },
  {
    name: '"null" to null with a oneOf null branch',
    schema: { oneOf: [{ type: 'null' }, { type: 'array' }] },
    input: 'null',
    expected: null
  },
  { name: '"null" to null for a nullable array, not ["null"]', schema: { type: 'array', nullable: true }, input: 'null', expected: null },
  { name: '"null" to null for [array, null], not ["null"]', schema: { type: ['array', 'null'] }, input: 'null', expected: null },
  { name: '"null" to null for anyOf [array, null]', schema: { anyOf: [{ type: 'array' }, { type: 'null' }] }, input: 'null', expected: null },
  { name: '"null" wrapped where an array is expected and null is not allowed', schema: { type: 'array' }, input: 'null', expected: ['null'] },
  { name: '"null" stays where null is not allowed', schema: integer, input: 'null', expected: 'null' },
  { name: '"null" stays for [string, null] (already a string)', schema: { type: ['string', 'null'] }, input: 'null', expected: 'null' },
  { name: 'nullable: false does not allow null', schema: { type: 'integer', nullable: false }, input: 'null', expected: 'null' },

  // unions, in order
  // Issue 11: the listed order decides, even for a string that a later `string` would accept as is.
  { name: '[integer, string]: "5" to 5 (integer is tried first)', schema: { type: ['integer', 'string'] }, input: '5', expected: 5 },
  { name: '[string, integer]: "5" stays (string is listed first)', schema: { type: ['string', 'integer'] }, input: '5', expected: '5' },
  { name: '[integer, string]: "abc" stays a string', schema: { type: ['integer', 'string'] }, input: 'abc', expected: 'abc' },
  { name: '[array, string]: a plain string is not wrapped', schema: { type: ['array', 'string'] }, input: 'abc', expected: 'abc' },
  { name: '[array, string]: a JSON array string is parsed', schema: { type: ['array', 'string'] }, input: '[1]', expected: [1] },
  { name: '[null, string]: "null" to null', schema: { type: ['null', 'string'] }, input: 'null', expected: null },
  { name: '[boolean, integer]: "1" to 1', schema: { type: ['boolean', 'integer'] }, input: '1', expected: 1 },
  { name: '[integer, boolean]: "true" to true', schema: { type: ['integer', 'boolean'] }, input: 'true', expected: true },
  { name: '[number, array]: "7" to 7 (first that changes)', schema: { type: ['number', 'array'] }, input: '7', expected: 7 },
  { name: '[array, number]: "7" wrapped (first that changes)', schema: { type: ['array', 'number'] }, input: '7', expected: ['7'] },
  { name: '[integer, number]: "2.5" to 2.5', schema: { type: ['integer', 'number'] }, input: '2.5', expected: 2.5 },
  {
    name: 'anyOf branches in order: "true" to true',
    schema: { anyOf: [integer, boolean] },
    input: 'true',
    expected: true
  },
  {
    name: 'anyOf branches in order: integer before string converts "12"',
    schema: { anyOf: [integer, { type: 'string' }] },
    input: '12',
    expected: 12
  },
  {
    name: 'anyOf branches in order: string before integer keeps "12"',
    schema: { anyOf: [{ type: 'string' }, integer] },
    input: '12',
    expected: '12'
  },
  {
    name: 'anyOf with an untyped branch leaves the value',
    schema: { anyOf: [integer, { enum: ['x'] }] },
    input: '12',
    expected: '12'
  },

  // nested JSON strings guided by items / properties
  {
    name: 'array of objects as a JSON string, numbers inside as strings',
    schema: {
      type: 'array',
      items: { type: 'object', properties: { id: integer, score: number, ok: boolean, tag: { type: 'string' } } }
    },
    input: '[{"id": "1", "score": "2.5", "ok": "true", "tag": "7"}, {"id": 2, "extra": "3"}]',
    expected: [{ id: 1, score: 2.5, ok: true, tag: '7' }, { id: 2, extra: '3' }]
  },
  {
    name: 'object with a nested array given as a JSON string',
    schema: { type: 'object', properties: { ids: { type: 'array', items: integer } } },
    input: { ids: '["1", "2"]' },
    expected: { ids: [1, 2] }
  },
  {
    name: 'array members coerced inside an array that is already an array',
    schema: { type: 'array', items: number },
    input: ['1', 2, '3.5', 'x'],
    expected: [1, 2, 3.5, 'x']
  },
  {
    name: 'tuple prefixItems, then items for the rest',
    schema: { type: 'array', prefixItems: [integer, boolean], items: number },
    input: ['1', 'false', '2.5', '3'],
    expected: [1, false, 2.5, 3]
  },
  {
    name: 'draft-07 tuple items, then additionalItems',
    schema: { type: 'array', items: [boolean], additionalItems: integer },
    input: ['true', '4'],
    expected: [true, 4]
  },
  {
    name: 'two object branches: the members are not guessed',
    schema: {
      anyOf: [
        { type: 'object', properties: { a: integer } },
        { type: 'object', properties: { a: { type: 'string' } } }
      ]
    },
    input: { a: '5' },
    expected: { a: '5' }
  },
  { name: 'JSON-looking string in a string slot stays', schema: { type: 'string' }, input: '{"a": 1}', expected: '{"a": 1}' },
  { name: 'JSON array string in a string slot stays', schema: { type: 'string' }, input: '[1,2]', expected: '[1,2]' },

  // schemas without type information
  { name: 'schema true leaves the value', schema: true, input: '5', expected: '5' },
  { name: 'schema false leaves the value', schema: false, input: '5', expected: '5' },
  { name: 'empty schema leaves the value', schema: {}, input: '5', expected: '5' },
  { name: 'unknown type name leaves the value', schema: { type: 'int' }, input: '5', expected: '5' },
  { name: 'enum without type leaves the value', schema: { enum: [1, 2] }, input: '1', expected: '1' },

  // whole parameters schemas
  {
    name: 'extra keys are untouched',
    root: true,
    schema: { type: 'object', properties: { n: integer } },
    input: { n: '1', extra: '2', other: '[1]' },
    expected: { n: 1, extra: '2', other: '[1]' }
  },
  {
    name: 'no properties: nothing changes',
    root: true,
    schema: { type: 'object' },
    input: { n: '1' },
    expected: { n: '1' }
  },
  {
    name: '$ref to #/$defs',
    root: true,
    schema: { type: 'object', properties: { n: { $ref: '#/$defs/Count' } }, $defs: { Count: integer } },
    input: { n: '3' },
    expected: { n: 3 }
  },
  {
    name: '$ref to #/definitions, chained and inside items',
    root: true,
    schema: {
      type: 'object',
      properties: { list: { type: 'array', items: { $ref: '#/definitions/Item' } } },
      definitions: {
        Item: { $ref: '#/definitions/Shape' },
        Shape: { type: 'object', properties: { w: number } }
      }
    },
    input: { list: '[{"w": "1.5"}]' },
    expected: { list: [{ w: 1.5 }] }
  },
  {
    name: 'recursive schema through #',
    root: true,
    schema: { type: 'object', properties: { n: integer, child: { $ref: '#' } } },
    input: { n: '1', child: '{"n": "2", "child": {"n": "3"}}' },
    expected: { n: 1, child: { n: 2, child: { n: 3 } } }
  },
  {
    name: 'cyclic $ref chain leaves the value',
    root: true,
    schema: { type: 'object', properties: { n: { $ref: '#/$defs/A' } }, $defs: { A: { $ref: '#/$defs/B' }, B: { $ref: '#/$defs/A' } } },
    input: { n: '1' },
    expected: { n: '1' }
  },
  {
    name: 'unresolvable and remote $ref leave the value',
    root: true,
    schema: { type: 'object', properties: { a: { $ref: '#/$defs/Nope' }, b: { $ref: 'https://example.com/s.json' } } },
    input: { a: '1', b: '2' },
    expected: { a: '1', b: '2' }
  },
  {
    name: '$ref name on the Object prototype does not resolve',
    root: true,
    schema: { type: 'object', properties: { a: { $ref: '#/$defs/constructor' } }, $defs: {} },
    input: { a: '1' },
    expected: { a: '1' }
  }
]

function parametersFor (row: Row): JsonSchema {
  return row.root === true ? row.schema as JsonSchema : { type: 'object', properties: { v: row.schema } }
}

function argsFor (row: Row): Record<string, unknown> {
  return row.root === true ? row.input as Record<string, unknown> : { v: row.input }
}

function expectedFor (row: Row): unknown {
  return row.root === true ? row.expected : { v: row.expected }
}

for (const row of rows) {
  test(`coerce: ${row.name}`, () => {
    const args = argsFor(row)
    const before = structuredClone(args)
    const result = coerceArguments(args, parametersFor(row))
    assert.deepStrictEqual(result, expectedFor(row))
    assert.deepStrictEqual(args, before, 'the input must not be mutated')
    assert.notStrictEqual(result, args, 'a new object is returned')
  })
}

test('coerce: the input object and its nested containers are not mutated', () => {
  const inner = { id: '1' }
  const list = ['2', inner]
  const args = { list, n: '3' }
  const schema = {
    type: 'object',
    properties: { list: { type: 'array', items: { type: ['integer', 'object'], properties: { id: integer } } }, n: integer }
  }
  const result = coerceArguments(args, schema)
  assert.deepStrictEqual(result, { list: [2, { id: 1 }], n: 3 })
  assert.deepStrictEqual(args, { list: ['2', { id: '1' }], n: '3' })
  assert.equal(args.list, list)
  assert.equal(list[1], inner)
  assert.notEqual(result.list, list)
})

// Ajv drops `__proto__` from `properties` and never validates it, so coercion leaves that key alone
// too (an extra key); what matters is that it survives as an own property and pollutes nothing.
test('coerce: a __proto__ key from JSON.parse stays an own, untouched property and pollutes nothing', () => {
  const args = JSON.parse('{"__proto__": {"polluted": "true"}, "n": "1"}') as Record<string, unknown>
  const schema = JSON.parse(`{"type": "object", "properties": {
    "__proto__": {"type": "object", "properties": {"polluted": {"type": "boolean"}}},
    "n": {"type": "integer"}}}`) as JsonSchema
  const result = coerceArguments(args, schema)
  assert.equal(result.n, 1)
  assert.equal(Object.getPrototypeOf(result), Object.prototype)
  assert.deepStrictEqual(Object.getOwnPropertyDescriptor(result, '__proto__')?.value, { polluted: 'true' })
  assert.equal(({} as Record<string, unknown>).polluted, undefined)
  assert.equal(Object.getPrototypeOf(args), Object.prototype)
})

test('coerce: a JSON string argument holding __proto__ is not turned into an object (validation refuses the string)', () => {
  const schema = {
    type: 'object',
    properties: { o: { type: 'object', properties: { n: integer } } }
  }
  const text = '{"__proto__": {"polluted": true}, "n": "2"}'
  assert.equal(coerceArguments({ o: text }, schema).o, text)
  assert.equal(({} as Record<string, unknown>).polluted, undefined)
  assert.deepEqual(coerceArguments({ o: '{"n": "2"}' }, schema).o, { n: 2 }, 'without it the string is parsed as ever')
})

test('coerce: inherited names in args are not looked up on the schema prototype', () => {
  const result = coerceArguments({ toString: '1', constructor: '2' }, { type: 'object', properties: {} })
  assert.deepStrictEqual(result, { toString: '1', constructor: '2' })
})

test('coerce: malformed parameters and a deeply nested value never throw', () => {
  const args = { a: '1' }
  for (const parameters of [null, 5, 'x', [], { properties: null }, { properties: [] }, { $ref: '#' }]) {
    assert.deepStrictEqual(coerceArguments(args, parameters as unknown as JsonSchema), { a: '1' })
  }
  let deep: unknown = '1'
  for (let i = 0; i < 10_000; i++) deep = [deep]
  const nested = { type: 'array', items: { $ref: '#/$defs/N' } }
  const schema = { type: 'object', properties: { d: { $ref: '#/$defs/N' } }, $defs: { N: { type: ['array', 'integer'], items: { $ref: '#/$defs/N' } } } }
  assert.doesNotThrow(() => coerceArguments({ d: deep }, schema))
  assert.doesNotThrow(() => coerceArguments({ d: '[[[[1]]]]' }, { type: 'object', properties: { d: nested } }))
})

test('coerce: a getter that throws keeps the original value', () => {
  const args = { a: '1', b: '2' }
  const properties = { a: integer }
  Object.defineProperty(properties, 'b', { enumerable: true, get () { throw new Error('boom') } })
  const result = coerceArguments(args, { type: 'object', properties })
  assert.deepStrictEqual(result, { a: 1, b: '2' })
})

test('coerce: an array longer than its maxItems is left as it is, its members not walked (validation refuses it)', () => {
  const parameters: JsonSchema = { type: 'object', properties: { ids: { type: 'array', items: { type: 'integer' }, maxItems: 3 } } }
  const long = ['1', '2', '3', '4']
  assert.equal(coerceArguments({ ids: long }, parameters).ids, long)
  assert.deepEqual(coerceArguments({ ids: ['1', '2', '3'] }, parameters).ids, [1, 2, 3], 'within maxItems: coerced as ever')
})
