// Reads JSON-Schema type information (type lists, nullable, anyOf/oneOf, local $ref) for argument coercion.
import type { JsonSchema } from './document.ts'
import { isRecord } from '../shared/objects.ts'

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'array' | 'object'

/** One type a slot accepts, with the (sub)schema that declared it: its items/properties guide recursion. */
export interface TypeCandidate {
  type: JsonType
  schema: JsonSchema
}

const JSON_TYPES = new Set<string>(['string', 'number', 'integer', 'boolean', 'null', 'array', 'object'])

// Schemas are untrusted: a chain of $ref (or anyOf nesting) may be cyclic or absurdly deep.
const MAX_REF_HOPS = 32
const MAX_BRANCH_DEPTH = 16

/** Reads an own property only, so keys such as `__proto__` or `constructor` never reach the prototype. */
export function ownValue (object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined
}

function decodePointerToken (token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~')
}

function lookupLocalRef (ref: string, root: JsonSchema): unknown {
  if (ref === '#') return root
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref)
  if (match === null) return undefined
  const defs = ownValue(root, match[1])
  return isRecord(defs) ? ownValue(defs, decodePointerToken(match[2])) : undefined
}

/**
 * Follows local `$ref`s to a schema object. Returns undefined for `true`/`false`/missing schemas, for
 * unresolvable or non-local refs and for cycles, all of which mean "no type information".
 */
export function resolveSchema (schema: unknown, root: JsonSchema): JsonSchema | undefined {
  let current = schema
  for (let hops = 0; hops <= MAX_REF_HOPS; hops++) {
    if (!isRecord(current)) return undefined
    const ref = ownValue(current, '$ref')
    if (typeof ref !== 'string') return current
    current = lookupLocalRef(ref, root)
  }
  return undefined
}

function declaredTypes (schema: JsonSchema): JsonType[] | undefined {
  const type = ownValue(schema, 'type')
  const names = typeof type === 'string' ? [type] : type
  if (!Array.isArray(names) || names.length === 0) return undefined
  // An unknown type name makes the schema invalid for Ajv too; coercing against it would be a guess.
  if (!names.every((name) => typeof name === 'string' && JSON_TYPES.has(name))) return undefined
  return names as JsonType[]
}

function branchCandidates (schema: JsonSchema, root: JsonSchema, depth: number): TypeCandidate[] | undefined {
  const branches = ownValue(schema, 'anyOf') ?? ownValue(schema, 'oneOf')
  if (!Array.isArray(branches) || branches.length === 0) return undefined
  const candidates: TypeCandidate[] = []
  for (const branch of branches) {
    const resolved = resolveSchema(branch, root)
    const inner = resolved === undefined ? undefined : collectCandidates(resolved, root, depth + 1)
    // A branch without type information accepts anything, so the union as a whole says nothing.
    if (inner === undefined) return undefined
    candidates.push(...inner)
  }
  return candidates
}

function collectCandidates (schema: JsonSchema, root: JsonSchema, depth: number): TypeCandidate[] | undefined {
  if (depth > MAX_BRANCH_DEPTH) return undefined
  const types = declaredTypes(schema)
  const candidates = types !== undefined
    ? types.map((type) => ({ type, schema }))
    : branchCandidates(schema, root, depth)
  if (candidates === undefined) return undefined
  if (ownValue(schema, 'nullable') === true && !candidates.some((c) => c.type === 'null')) {
    candidates.push({ type: 'null', schema })
  }
  return candidates
}

/**
 * The types a (resolved) schema accepts, in the order the schema lists them: `type` (string or array)
 * when present, otherwise the anyOf/oneOf branches in order; `nullable: true` adds null. Undefined
 * when the schema carries no usable type information.
 */
export function typeCandidates (schema: JsonSchema, root: JsonSchema): TypeCandidate[] | undefined {
  return collectCandidates(schema, root, 0)
}

/**
 * Whether an array is longer than its (resolved) schema's `maxItems`: validation refuses it whatever
 * its members, so walking them (to coerce them, or drop their nulls) would be work spent on a call
 * that fails anyway, and a body of half a million members makes that work seconds.
 */
export function exceedsMaxItems (array: readonly unknown[], schema: JsonSchema): boolean {
  const maxItems = ownValue(schema, 'maxItems')
  return typeof maxItems === 'number' && array.length > maxItems
}

/** Whether a value is of a JSON-Schema type, with Ajv's meaning of `integer` and `object`. */
export function matchesType (value: unknown, type: JsonType): boolean {
  switch (type) {
    case 'string': return typeof value === 'string'
    case 'number': return typeof value === 'number' && Number.isFinite(value)
    case 'integer': return Number.isInteger(value)
    case 'boolean': return typeof value === 'boolean'
    case 'null': return value === null
    case 'array': return Array.isArray(value)
    case 'object': return isRecord(value)
  }
}

const conversionFirst = new WeakMap<JsonSchema, boolean>()
const MAX_WALK_DEPTH = 64

/** `string` listed after a type a string converts to: a string may be valid there and still change. */
function stringAfterConversion (candidates: TypeCandidate[]): boolean {
  const first = candidates.findIndex((candidate) => candidate.type === 'string')
  return first > 0
}

/**
 * Whether coercion may change arguments that already validate against `root`: true when some slot
 * lists another type before `string` (`[integer, string]` turns the valid `"42"` into 42). Walks
 * every object of the schema once (a superset of its slots, which is the safe side) and caches
 * the answer per schema object. A schema it cannot read answers true: coercion then just runs.
 */
export function convertsValidStrings (root: JsonSchema): boolean {
  let answer = conversionFirst.get(root)
  if (answer !== undefined) return answer
  const seen = new Set<object>()
  const visit = (node: unknown, depth: number): boolean => {
    if (typeof node !== 'object' || node === null || seen.has(node) || depth > MAX_WALK_DEPTH) return false
    seen.add(node)
    if (!Array.isArray(node)) {
      const candidates = typeCandidates(node as JsonSchema, root)
      if (candidates !== undefined && stringAfterConversion(candidates)) return true
    }
    return Object.values(node).some((child) => visit(child, depth + 1))
  }
  try {
    answer = visit(root, 0)
  } catch {
    answer = true
  }
  conversionFirst.set(root, answer)
  return answer
}
