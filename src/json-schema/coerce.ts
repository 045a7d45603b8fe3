// Coerces the loosely typed arguments a model sends toward the types of the tool's parameters (REFERENCE §7).
import secureJson from 'secure-json-parse'
import type { JsonSchema } from './document.ts'
import { exceedsMaxItems, matchesType, ownValue, resolveSchema, typeCandidates } from './schema-types.ts'
import type { TypeCandidate } from './schema-types.ts'
import { FORBIDDEN_JSON_KEYS, isRecord } from '../shared/objects.ts'

// A conversion that does not apply; distinct from every JSON value, including null and undefined.
const UNCHANGED = Symbol('unchanged')
type Conversion = unknown

// Values come from a model: bound the recursion so a deeply nested payload cannot exhaust the stack.
const MAX_VALUE_DEPTH = 64

// A decimal or exponent float literal; hex, `Infinity`, `nan`, `1_000` and the empty string do not match.
const DECIMAL_LITERAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/

interface Context {
  root: JsonSchema
  /** Each subschema's types, read once per call: the members of an array share one schema. */
  candidates: Map<unknown, TypeCandidate[] | undefined>
}

/**
 * Returns a new object in which each argument named in `parameters.properties` is coerced toward
 * its schema. Never throws and never mutates `args`; a value that cannot be coerced stays as it was
 * (validation reports it), and a value that already has an allowed type stays as it was.
 */
export function coerceArguments (args: Record<string, unknown>, parameters: JsonSchema): Record<string, unknown> {
  if (!isRecord(args)) return args
  try {
    const root = isRecord(parameters) ? parameters : {}
    const schema = resolveSchema(root, root)
    const coerced = schema === undefined ? args : coerceProperties(args, schema, { root, candidates: new Map() }, 0)
    return coerced === args ? { ...args } : coerced
  } catch {
    return { ...args }
  }
}

function coerceValue (value: unknown, schema: unknown, ctx: Context, depth: number): unknown {
  try {
    return coerceSlot(value, schema, ctx, depth)
  } catch {
    return value
  }
}

/**
 * The dispatcher: the types are tried in the order the schema lists them (REFERENCE §7). A type the
 * value already has ends the walk (containers keep their kind, their members are coerced); before
 * it, the first conversion that changes the value wins, so `"42"` becomes 42 for
 * `[integer, string]` but stays for `[string, integer]`.
 */
function coerceSlot (value: unknown, schema: unknown, ctx: Context, depth: number): unknown {
  if (depth > MAX_VALUE_DEPTH) return value
  const candidates = candidatesOf(schema, ctx)
  if (candidates === undefined) return value

  const matching = candidates.filter((candidate) => matchesType(value, candidate.type))
  // Wrapping a bare value into an array is the last resort: not for a value some listed type
  // already accepts, nor for "null" where null is allowed (it means null, not ["null"]).
  const mayWrap = matching.length === 0 && !(isNullWord(value) && candidates.some((c) => c.type === 'null'))
  for (const candidate of candidates) {
    if (matchesType(value, candidate.type)) return coerceInside(value, matching, ctx, depth)
    const converted = convert(value, candidate, ctx, depth, mayWrap)
    if (converted !== UNCHANGED) return converted
  }
  return value
}

function candidatesOf (schema: unknown, ctx: Context): TypeCandidate[] | undefined {
  if (ctx.candidates.has(schema)) return ctx.candidates.get(schema)
  const resolved = resolveSchema(schema, ctx.root)
  const candidates = resolved === undefined ? undefined : typeCandidates(resolved, ctx.root)
  ctx.candidates.set(schema, candidates)
  return candidates
}

/**
 * A container of an allowed type keeps its kind, but its members are coerced. Only when a single
 * schema declares that kind: with two (anyOf of two object shapes) we cannot tell which one the
 * value meant, and guessing could change a value that already validates against the other.
 */
function coerceInside (value: unknown, matching: TypeCandidate[], ctx: Context, depth: number): unknown {
  const schemas = new Set(matching.filter((c) => c.type === 'array' || c.type === 'object').map((c) => c.schema))
  if (schemas.size !== 1) return value
  const [schema] = schemas
  if (Array.isArray(value)) return coerceItems(value, schema, ctx, depth)
  if (isRecord(value)) return coerceProperties(value, schema, ctx, depth)
  return value
}

function convert (value: unknown, candidate: TypeCandidate, ctx: Context, depth: number, mayWrap: boolean): Conversion {
  switch (candidate.type) {
    case 'integer': return stringToInteger(value)
    case 'number': return stringToNumber(value)
    case 'boolean': return stringToBoolean(value)
    case 'null': return stringToNull(value)
    case 'array': return toArray(value, candidate.schema, ctx, depth, mayWrap)
    case 'object': return stringToObject(value, candidate.schema, ctx, depth)
    case 'string': return UNCHANGED
  }
}

/** Parses a decimal literal; undefined when it is not one or cannot be represented without loss. */
function parseDecimal (text: string): number | undefined {
  const trimmed = text.trim()
  if (!DECIMAL_LITERAL.test(trimmed)) return undefined
  const parsed = Number(trimmed)
  if (!Number.isFinite(parsed)) return undefined
  // Integers beyond 2^53 would silently turn into a neighbour: keep the exact digits as a string.
  if (Number.isInteger(parsed) && !Number.isSafeInteger(parsed)) return undefined
  // Underflow ("1e-400" → 0) is a loss of the same kind.
  const mantissa = trimmed.split(/[eE]/)[0]
  if (parsed === 0 && /[1-9]/.test(mantissa)) return undefined
  return parsed === 0 ? 0 : parsed // no -0: it reads back as "0" in JSON anyway
}

function stringToInteger (value: unknown): Conversion {
  if (typeof value !== 'string') return UNCHANGED
  const parsed = parseDecimal(value)
  return parsed !== undefined && Number.isInteger(parsed) ? parsed : UNCHANGED
}

function stringToNumber (value: unknown): Conversion {
  if (typeof value !== 'string') return UNCHANGED
  return parseDecimal(value) ?? UNCHANGED
}

function stringToBoolean (value: unknown): Conversion {
  if (typeof value !== 'string') return UNCHANGED
  const word = value.trim().toLowerCase()
  if (word === 'true') return true
  if (word === 'false') return false
  return UNCHANGED
}

function isNullWord (value: unknown): boolean {
  return typeof value === 'string' && value.trim().toLowerCase() === 'null'
}

function stringToNull (value: unknown): Conversion {
  return isNullWord(value) ? null : UNCHANGED
}

/** A JSON text holding `__proto__` (or `constructor.prototype`) stays a string: validation then refuses it. */
function parseJsonContainer (text: string, opening: '[' | '{'): unknown {
  if (!text.trimStart().startsWith(opening)) return UNCHANGED
  try {
    return secureJson.parse(text, undefined, FORBIDDEN_JSON_KEYS)
  } catch {
    return UNCHANGED
  }
}

/** A JSON array string is parsed; when `mayWrap`, any other non-null value is wrapped (`5` → `[5]`, `"{}"` → `["{}"]`). */
function toArray (value: unknown, schema: JsonSchema, ctx: Context, depth: number, mayWrap: boolean): Conversion {
  if (value === null || value === undefined) return UNCHANGED
  const parsed = typeof value === 'string' ? parseJsonContainer(value, '[') : UNCHANGED
  if (!Array.isArray(parsed) && !mayWrap) return UNCHANGED
  const array = Array.isArray(parsed) ? parsed : [value]
  return coerceItems(array, schema, ctx, depth)
}

function stringToObject (value: unknown, schema: JsonSchema, ctx: Context, depth: number): Conversion {
  if (typeof value !== 'string') return UNCHANGED
  const parsed = parseJsonContainer(value, '{')
  return isRecord(parsed) ? coerceProperties(parsed, schema, ctx, depth) : UNCHANGED
}

/** Schemas for each position: `prefixItems` (2020-12) or array-form `items` (draft-07), then the rest. */
function itemSchemas (schema: JsonSchema): { tuple: unknown[], rest: unknown } {
  const prefixItems = ownValue(schema, 'prefixItems')
  const items = ownValue(schema, 'items')
  if (Array.isArray(prefixItems)) return { tuple: prefixItems, rest: items }
  if (Array.isArray(items)) return { tuple: items, rest: ownValue(schema, 'additionalItems') }
  return { tuple: [], rest: items }
}

/** Coerces members copy-on-write: an array with nothing to change comes back as the same array. */
function coerceItems (array: unknown[], schema: JsonSchema, ctx: Context, depth: number): unknown[] {
  if (exceedsMaxItems(array, schema)) return array
  const { tuple, rest } = itemSchemas(schema)
  let result: unknown[] | undefined
  for (let i = 0; i < array.length; i++) {
    const coerced = coerceValue(array[i], i < tuple.length ? tuple[i] : rest, ctx, depth + 1)
    if (coerced !== array[i]) {
      result ??= array.slice()
      result[i] = coerced
    }
  }
  return result ?? array
}

function coerceProperties (
  object: Record<string, unknown>, schema: JsonSchema, ctx: Context, depth: number
): Record<string, unknown> {
  const properties = ownValue(schema, 'properties')
  if (!isRecord(properties)) return object
  let result: Record<string, unknown> | undefined
  for (const key of Object.keys(object)) {
    const original = object[key]
    const coerced = coerceMember(original, properties, key, ctx, depth)
    if (coerced !== original) {
      result ??= { ...object }
      setOwn(result, key, coerced)
    }
  }
  return result ?? object
}

/** Reading the schema is inside the guard too: schemas are untrusted and may not be plain data. */
function coerceMember (value: unknown, properties: Record<string, unknown>, key: string, ctx: Context, depth: number): unknown {
  try {
    if (!Object.hasOwn(properties, key)) return value // extra keys are left untouched
    // Ajv drops `__proto__` from `properties` and never validates it; coercing what it never checks
    // would change arguments that validate, so that key is treated as an extra key.
    if (key === '__proto__') return value
    return coerceValue(value, properties[key], ctx, depth + 1)
  } catch {
    return value
  }
}

/** Assignment would call the `__proto__` setter for that key; defining the property never does. */
function setOwn (object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true })
}
