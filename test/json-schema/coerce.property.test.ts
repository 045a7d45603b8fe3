// Property tests of argument coercion: it never throws, and it never changes arguments Ajv already accepts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { Ajv } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { coerceArguments } from '../../src/json-schema/coerce.ts'
import { convertsValidStrings } from '../../src/json-schema/schema-types.ts'
import type { JsonSchema } from '../../src/registry/types.ts'

type Schema = Record<string, unknown>

const ALL_TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'array', 'object'] as const
const SCALAR_TYPES = ['string', 'number', 'integer', 'boolean', 'null'] as const
const KEYS = ['a', 'b', 'c', '__proto__', 'constructor']

// Named schemas every generated root carries, so generated `$ref`s always resolve (Tree is recursive).
const DEFS = {
  Int: { type: 'integer' },
  Obj: { type: 'object', properties: { n: { type: ['number', 'null'] }, list: { type: 'array', items: { type: 'boolean' } } } },
  Tree: { type: 'object', properties: { v: { type: 'integer' }, kids: { type: 'array', items: { $ref: '#/$defs/Tree' } } } }
}
const DEFINITIONS = { Flag: { type: 'boolean', nullable: true } }
const REFS = ['#/$defs/Int', '#/$defs/Obj', '#/$defs/Tree', '#/definitions/Flag']

// Strings that look like other types: the cases where coercion is tempted to act.
const CONFUSERS = [
  '5', ' 7 ', '3.0', '1e3', '2.5', '-0', 'inf', 'NaN', 'Infinity', '9007199254740993', 'true', 'FALSE', 'yes',
  'null', ' NULL ', '[]', '[1,"2"]', '{}', '{"n":"1"}', '{"__proto__":{"x":1}}', '', 'abc'
]

// Two object shapes that may disagree on `a`: a value valid for one must not be coerced by the other.
const shape = fc.constantFrom(...SCALAR_TYPES).map((type) => ({ type: 'object', properties: { a: { type } } }))
const twoShapes = fc.tuple(shape, shape).map((anyOf) => ({ anyOf }))

function schemaArbitrary (withPrefixItems: boolean): fc.Arbitrary<Schema> {
  const { schema } = fc.letrec<{ schema: Schema }>((tie) => {
    const child = tie('schema')
    const arrays: fc.Arbitrary<Schema>[] = [child.map((items) => ({ type: 'array', items }))]
    if (withPrefixItems) {
      arrays.push(fc.record({ type: fc.constant('array'), prefixItems: fc.array(child, { minLength: 1, maxLength: 3 }), items: child }))
    }
    return {
      schema: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(...SCALAR_TYPES).map((type) => ({ type })),
        fc.uniqueArray(fc.constantFrom(...ALL_TYPES), { minLength: 1, maxLength: 3 }).map((type) => ({ type })),
        fc.constantFrom(...ALL_TYPES).filter((t) => t !== 'null').map((type) => ({ type, nullable: true })),
        fc.constantFrom(...REFS).map(($ref) => ({ $ref })),
        fc.constant({}),
        fc.array(child, { minLength: 1, maxLength: 3 }).map((anyOf) => ({ anyOf })),
        fc.array(child, { minLength: 1, maxLength: 3 }).map((oneOf) => ({ oneOf })),
        ...arrays,
        twoShapes,
        fc.dictionary(fc.constantFrom(...KEYS), child, { maxKeys: 3, noNullPrototype: true }).map((properties) => ({ type: 'object', properties }))
      )
    }
  })
  return fc.dictionary(fc.constantFrom(...KEYS), schema, { minKeys: 1, maxKeys: 4, noNullPrototype: true })
    .map((properties) => ({ type: 'object', properties, $defs: DEFS, definitions: DEFINITIONS }))
}

function lookup (ref: string): Schema {
  const [, section, name] = ref.split('/')
  return ((section === '$defs' ? DEFS : DEFINITIONS) as Record<string, Schema>)[name]
}

const jsonish = fc.jsonValue({ maxDepth: 2 })
const confuser = fc.constantFrom(...CONFUSERS)

function typedValue (type: string, schema: Schema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string': return fc.oneof(confuser, fc.string({ maxLength: 8 }))
    case 'integer': return fc.oneof(fc.integer(), fc.constantFrom(0, -0, 3, Number.MAX_SAFE_INTEGER))
    case 'number': return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(2.5, 1e21))
    case 'boolean': return fc.boolean()
    case 'null': return fc.constant(null)
    case 'array': return depth > 3 ? fc.constant([]) : arrayValue(schema, depth)
    default: return depth > 3 ? fc.constant({}) : objectValue(schema, depth)
  }
}

function arrayValue (schema: Schema, depth: number): fc.Arbitrary<unknown> {
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems as unknown[] : []
  const rest = fc.array(valueFor(schema.items, depth + 1), { maxLength: 3 })
  if (prefix.length === 0) return rest
  return fc.tuple(fc.tuple(...prefix.map((s) => valueFor(s, depth + 1))), rest).map(([head, tail]) => [...head, ...tail])
}

function objectValue (schema: Schema, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Schema
  const known = Object.keys(properties).map((key) => fc.tuple(fc.constant(key), valueFor(properties[key], depth + 1)))
  const extra = fc.tuple(fc.constantFrom('x', 'y'), jsonish)
  // Entries become own properties (a `__proto__` key included), as JSON.parse would make them.
  return fc.tuple(fc.subarray(known.length > 0 ? known : [extra]).chain((arbs) => fc.tuple(...arbs)), fc.array(extra, { maxLength: 1 }))
    .map(([entries, extras]) => Object.fromEntries([...entries, ...extras]))
}

/** Values near the schema: usually of an allowed type, sometimes a look-alike string or any JSON. */
function valueFor (schema: unknown, depth: number): fc.Arbitrary<unknown> {
  if (typeof schema !== 'object' || schema === null) return jsonish
  const s = schema as Schema
  if (typeof s.$ref === 'string') return valueFor(lookup(s.$ref), depth)
  const branches = (s.anyOf ?? s.oneOf) as unknown[] | undefined
  let typed: fc.Arbitrary<unknown>
  if (s.type !== undefined) {
    const types = [s.type, ...(s.nullable === true ? ['null'] : [])].flat() as string[]
    typed = fc.oneof(...types.map((type) => typedValue(type, s, depth)))
  } else if (branches !== undefined) {
    typed = fc.oneof(...branches.map((branch) => valueFor(branch, depth)))
  } else {
    typed = jsonish
  }
  return fc.oneof({ arbitrary: typed, weight: 6 }, { arbitrary: confuser, weight: 1 }, { arbitrary: jsonish, weight: 1 })
}

function argsFor (root: Schema): fc.Arbitrary<Record<string, unknown>> {
  return objectValue(root, 0) as fc.Arbitrary<Record<string, unknown>>
}

const schemaAndArgs = (withPrefixItems: boolean) =>
  schemaArbitrary(withPrefixItems).chain((schema) => fc.tuple(fc.constant(schema), argsFor(schema)))

test('coerceArguments never throws and never mutates, whatever the schema and arguments', () => {
  const junkSchema = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.anything({ maxDepth: 2 })) as fc.Arbitrary<unknown>
  const anyArgs = fc.dictionary(fc.oneof(fc.string(), fc.constantFrom(...KEYS)), fc.jsonValue({ maxDepth: 3 }), { noNullPrototype: true })
  const cases = fc.oneof(
    schemaAndArgs(true),
    fc.tuple(schemaArbitrary(true), anyArgs),
    fc.tuple(junkSchema, anyArgs),
    fc.tuple(junkSchema.map((properties) => ({ type: 'object', properties })), anyArgs)
  )
  fc.assert(fc.property(cases, ([schema, args]) => {
    const before = structuredClone(args)
    const result = coerceArguments(args, schema as JsonSchema)
    assert.equal(typeof result, 'object')
    assert.notEqual(result, args)
    assert.deepStrictEqual(args, before)
    assert.equal(Object.getPrototypeOf(result), Object.prototype)
  }), { numRuns: 500 })
})

function assertValidArgsUnchanged (validatorFor: (schema: Schema) => (data: unknown) => boolean, withPrefixItems: boolean): void {
  let valid = 0
  let runs = 0
  fc.assert(fc.property(schemaAndArgs(withPrefixItems), ([schema, args]) => {
    runs++
    if (!validatorFor(schema)(args)) return
    valid++
    // A union listing a type before `string` may convert a valid string (§7, issue 11): the
    // dispatcher keeps such a conversion only when it validates, which the route tests cover.
    if (convertsValidStrings(schema as JsonSchema)) return
    const before = structuredClone(args)
    assert.deepStrictEqual(coerceArguments(args, schema as JsonSchema), before)
  }), { numRuns: 400 })
  // A generator that rarely produced valid arguments would make the property vacuous.
  assert.ok(valid >= runs / 4, `only ${valid} of ${runs} generated arguments were valid`)
}

test('coercion never changes arguments that already validate (Ajv draft-07, as the dispatcher uses)', () => {
  const ajv = new Ajv({ strict: false, addUsedSchema: false })
  assertValidArgsUnchanged((schema) => ajv.compile(schema), false)
})

test('coercion never changes arguments that already validate (Ajv 2020-12, with prefixItems)', () => {
  const ajv = new Ajv2020({ strict: false, addUsedSchema: false })
  assertValidArgsUnchanged((schema) => ajv.compile(schema), true)
})

test('an object valid for one of two anyOf shapes is not coerced by the other', () => {
  const ajv = new Ajv({ strict: false, addUsedSchema: false })
  const member = fc.oneof(confuser, fc.integer(), fc.boolean(), fc.constant(null))
  let valid = 0
  fc.assert(fc.property(twoShapes, member.map((a) => ({ a })), (union, value) => {
    const schema = { type: 'object', properties: { v: union } }
    const args = { v: value }
    if (!ajv.compile(schema)(args)) return
    valid++
    assert.deepStrictEqual(coerceArguments(args, schema), { v: { a: value.a } })
  }), { numRuns: 300 })
  assert.ok(valid >= 50, `only ${valid} valid cases`)
})
