// Patterns of untrusted (MCP) schemas run on RE2, in linear time: the usual ones validate as
// before, a catastrophic one answers at once, and one RE2 cannot run (lookaround, backreference)
// makes the schema refuse every call with a reason rather than pass or hang. Trusted schemas keep
// JavaScript's engine and its full syntax.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { validateArguments } from '../../src/json-schema/validate.ts'
import type { JsonSchema } from '../../src/registry/types.ts'

function withPattern (pattern: string): JsonSchema {
  return { type: 'object', properties: { value: { type: 'string', pattern } } }
}

test('untrusted patterns keep their meaning on the linear engine', () => {
  const cases: Array<[string, string, boolean]> = [
    ['^[a-z]+-\\d{2}$', 'abc-12', true],
    ['^[a-z]+-\\d{2}$', 'abc-123', false],
    ['ab', 'xxabyy', true], // unanchored, as JSON Schema says
    ['^\\p{L}+$', 'héllo', true],
    ['^\\u00e9$', 'é', true],
    ['^(?<year>\\d{4})$', '2024', true]
  ]
  for (const [pattern, value, valid] of cases) {
    assert.equal(validateArguments({ value }, withPattern(pattern), false).valid, valid, `${pattern} against ${value}`)
  }
})

test('a catastrophic pattern against a long near-match answers, in patterns and in patternProperties', () => {
  const evil = `${'a'.repeat(50_000)}b`
  const result = validateArguments({ value: evil }, withPattern('^(a+)+$'), false)
  assert.equal(result.valid, false)
  if (!result.valid) assert.match(result.message, /\/value: must match pattern "\^\(a\+\)\+\$"/)
  const keys: JsonSchema = { type: 'object', patternProperties: { '^(a+)+$': { type: 'integer' } } }
  assert.equal(validateArguments({ [evil]: 'any' }, keys, false).valid, true, 'the key does not match, so nothing applies')
  assert.equal(validateArguments({ aaa: 'not an integer' }, keys, false).valid, false)
})

test('an untrusted pattern RE2 cannot run refuses every call with the reason, never accepts silently', () => {
  const result = validateArguments({ value: 'x' }, withPattern('^(?!\\.)[a-z.]+$'), false)
  assert.equal(result.valid, false)
  if (result.valid) return
  assert.equal(result.schemaBroken, true)
  assert.match(result.message, /the tool's parameter schema is invalid: .*\(\?!/)
})

test('trusted schemas keep the JavaScript engine, lookaround included', () => {
  assert.equal(validateArguments({ value: 'abc' }, withPattern('^(?!\\.)[a-z.]+$'), true).valid, true)
  assert.equal(validateArguments({ value: '.abc' }, withPattern('^(?!\\.)[a-z.]+$'), true).valid, false)
})
