// Gemini function declarations take their parameters in Gemini's own schema: a subset of OpenAPI 3.0
// (the Schema type of @google/genai), with upper-case type names and integers such as minLength as
// strings. This rewrites a JSON Schema to it: local $refs inlined (recursive ones refused), oneOf
// as anyOf, const as a one-value enum, a null in a type list or an anyOf as `nullable`, keywords
// the subset lacks (additionalProperties, patternProperties, $schema, not, ...) dropped. Dropping
// only loosens what the model is told: the gateway still validates every call against the original
// schema. What Gemini cannot say at all (a value of any type, a tuple, a non-string enum, allOf,
// an object without properties) is refused with the place and the reason, never guessed.
import type { JsonSchema } from '../../registry/types.ts'
import { isRecord } from '../../shared/objects.ts'
import { attempt, childPath, localTarget, own, SchemaNotExpressible, typeNames, type Rewrite } from './unexpressible.ts'

export type GeminiType = 'STRING' | 'NUMBER' | 'INTEGER' | 'BOOLEAN' | 'ARRAY' | 'OBJECT'

/** The fields of @google/genai's Schema the gateway emits. */
export interface GeminiSchema {
  type?: GeminiType
  description?: string
  title?: string
  nullable?: boolean
  enum?: string[]
  format?: string
  pattern?: string
  minimum?: number
  maximum?: number
  minLength?: string
  maxLength?: string
  minItems?: string
  maxItems?: string
  minProperties?: string
  maxProperties?: string
  items?: GeminiSchema
  properties?: Record<string, GeminiSchema>
  required?: string[]
  anyOf?: GeminiSchema[]
}

const TYPES: Record<string, GeminiType> = { string: 'STRING', number: 'NUMBER', integer: 'INTEGER', boolean: 'BOOLEAN', array: 'ARRAY', object: 'OBJECT' }

/** Formats Gemini documents per type; any other is dropped. */
const FORMATS: Record<string, string[]> = { STRING: ['date-time', 'enum'], INTEGER: ['int32', 'int64'], NUMBER: ['float', 'double'] }

const COPIED = ['description', 'title', 'pattern', 'minimum', 'maximum'] as const
// int64 fields: the SDK types them as strings (proto3 JSON form of an int64).
const COUNTS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const

interface Walk { root: JsonSchema, refs: string[] }

/**
 * The parameters rewritten for Gemini; undefined for a tool without parameters (Gemini refuses an
 * OBJECT without properties), or why they cannot be expressed.
 */
export function geminiParameters (parameters: JsonSchema): Rewrite<GeminiSchema | undefined> {
  return attempt(() => {
    const properties = own(parameters, 'properties')
    if (!isRecord(properties) || Object.keys(properties).length === 0) return undefined
    return rewrite(parameters, '', { root: parameters, refs: [] })
  })
}

function rewrite (node: unknown, path: string, walk: Walk): GeminiSchema {
  if (!isRecord(node)) throw new SchemaNotExpressible(path, node === true ? 'a value of any type cannot be said in Gemini\'s schema' : 'a schema that accepts nothing')
  const ref = own(node, '$ref')
  if (typeof ref === 'string') return inline(node, ref, path, walk)
  if (own(node, 'allOf') !== undefined) throw new SchemaNotExpressible(path, 'allOf is not supported in Gemini\'s schema')
  const branches = own(node, 'anyOf') ?? own(node, 'oneOf')
  if (Array.isArray(branches)) return union(node, branches, path, walk)
  const types = typeNames(node)
  const nonNull = types.filter((type) => type !== 'null')
  // A type list of several types becomes a union of one branch per type.
  if (nonNull.length > 1) return union(node, nonNull.map((type) => ({ ...node, type })), path, walk)
  if (types.length > 0 && nonNull.length === 0) throw new SchemaNotExpressible(path, 'a schema that accepts only null is not supported in Gemini\'s schema')
  const out = typed(node, nonNull[0], path, walk)
  if (types.includes('null')) out.nullable = true
  return out
}

function typed (node: Record<string, unknown>, declared: string | undefined, path: string, walk: Walk): GeminiSchema {
  const out: GeminiSchema = {}
  for (const key of COPIED) if (Object.hasOwn(node, key)) (out as Record<string, unknown>)[key] = node[key]
  for (const key of COUNTS) if (typeof node[key] === 'number') out[key] = String(node[key])
  const values = Object.hasOwn(node, 'const') ? [node.const] : own(node, 'enum')
  if (Array.isArray(values)) {
    if (values.includes(null)) out.nullable = true
    const named = values.filter((value) => value !== null)
    if (!named.every((value) => typeof value === 'string')) throw new SchemaNotExpressible(path, 'an enum or const of non-string values is not supported in Gemini\'s schema')
    out.enum = named as string[]
  }
  const type = declared ?? inferred(node, out)
  if (type === undefined || TYPES[type] === undefined) throw new SchemaNotExpressible(path, 'a value of any type (no type) cannot be said in Gemini\'s schema')
  out.type = TYPES[type]
  const format = own(node, 'format')
  if (typeof format === 'string' && FORMATS[out.type]?.includes(format)) out.format = format
  if (out.type === 'OBJECT') Object.assign(out, object(node, path, walk))
  if (out.type === 'ARRAY') out.items = items(node, path, walk)
  return out
}

function inferred (node: Record<string, unknown>, out: GeminiSchema): string | undefined {
  if (out.enum !== undefined) return 'string'
  if (isRecord(own(node, 'properties'))) return 'object'
  return own(node, 'items') === undefined ? undefined : 'array'
}

function object (node: Record<string, unknown>, path: string, walk: Walk): GeminiSchema {
  const properties = own(node, 'properties')
  if (!isRecord(properties) || Object.keys(properties).length === 0) {
    throw new SchemaNotExpressible(path, 'an object without declared properties is not supported in Gemini\'s schema')
  }
  const out: Record<string, GeminiSchema> = {}
  for (const [name, schema] of Object.entries(properties)) out[name] = rewrite(schema, childPath(path, 'properties', name), walk)
  const required = own(node, 'required')
  const names = Array.isArray(required) ? required.filter((name): name is string => typeof name === 'string' && Object.hasOwn(out, name)) : []
  return names.length === 0 ? { properties: out } : { properties: out, required: names }
}

function items (node: Record<string, unknown>, path: string, walk: Walk): GeminiSchema {
  const schema = own(node, 'items')
  if (Array.isArray(schema) || own(node, 'prefixItems') !== undefined) throw new SchemaNotExpressible(path, 'tuple arrays are not supported in Gemini\'s schema')
  if (schema === undefined) throw new SchemaNotExpressible(path, 'an array of values of any type cannot be said in Gemini\'s schema')
  return rewrite(schema, childPath(path, 'items'), walk)
}

/** anyOf (or oneOf, which only loosens to anyOf): a null branch becomes `nullable`. */
function union (node: Record<string, unknown>, branches: unknown[], path: string, walk: Walk): GeminiSchema {
  const isNull = (branch: unknown): boolean => isRecord(branch) && typeNames(branch).join() === 'null'
  const kept = branches.filter((branch) => !isNull(branch))
  if (kept.length === 0) throw new SchemaNotExpressible(path, 'a schema that accepts only null is not supported in Gemini\'s schema')
  const converted = kept.map((branch, i) => rewrite(branch, childPath(path, 'anyOf', i), walk))
  const out: GeminiSchema = converted.length === 1 ? converted[0] : { anyOf: converted }
  if (typeof node.description === 'string') out.description = node.description
  if (kept.length < branches.length || typeNames(node).includes('null')) out.nullable = true
  return out
}

function inline (node: Record<string, unknown>, ref: string, path: string, walk: Walk): GeminiSchema {
  if (walk.refs.includes(ref)) throw new SchemaNotExpressible(path, `the recursive $ref ${ref} cannot be inlined into Gemini's schema`)
  const target = localTarget(ref, walk.root)
  if (target === undefined) throw new SchemaNotExpressible(path, `the $ref ${ref} does not point into this schema's $defs or definitions`)
  const out = rewrite(target, path, { root: walk.root, refs: [...walk.refs, ref] })
  // Keywords beside a $ref (a description, most often) say more about this use of the definition.
  if (typeof node.description === 'string') out.description = node.description
  return out
}
