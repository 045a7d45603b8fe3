// OpenAI strict mode (Structured Outputs for function calling) accepts a subset of JSON Schema and
// makes the model's arguments match it exactly. This rewrites a tool's parameters to that subset:
// every property required, the ones that were optional made nullable (dispatch drops their nulls
// again, src/json-schema/optional-nulls.ts), `additionalProperties: false` on every object, and only
// the keywords strict mode supports kept. Dropping a constraint (minLength, `not`, ...) only
// loosens what the model is held to: the gateway still validates every call against the original
// schema. What would change the meaning (an open-ended object, allOf, a value of any type) is
// refused instead, with the place and the reason.
import type { JsonSchema } from '../../registry/types.ts'
import { isRecord } from '../../shared/objects.ts'
import { allowsNull, attempt, childPath, own, SchemaNotExpressible, typeNames, type Rewrite } from './unexpressible.ts'

/** Keywords strict mode supports, other than the structural ones rewritten below. */
const KEPT = ['type', 'description', 'enum', 'const', 'pattern', 'multipleOf', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems', '$ref']

/** String formats strict mode supports; any other is dropped (the gateway still checks it). */
export const STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'])

/** Strict mode's limit on object nesting. */
const MAX_DEPTH = 10

/** The parameters of a tool rewritten for strict mode, or why they cannot be. */
export function strictParameters (parameters: JsonSchema): Rewrite<JsonSchema> {
  return attempt(() => {
    const root = rewrite(parameters, '', 0)
    for (const key of ['$defs', 'definitions']) {
      const defs = own(parameters, key)
      if (!isRecord(defs)) continue
      root[key] = Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, rewrite(def, childPath('', key, name), 0)]))
    }
    return root
  })
}

function rewrite (node: unknown, path: string, depth: number): Record<string, unknown> {
  if (depth > MAX_DEPTH) throw new SchemaNotExpressible(path, `nesting deeper than the ${MAX_DEPTH} levels strict mode allows`)
  if (!isRecord(node)) throw new SchemaNotExpressible(path, `a ${node === true ? 'value of any type' : 'schema that accepts nothing'} cannot be strict`)
  if (own(node, 'allOf') !== undefined) throw new SchemaNotExpressible(path, 'allOf is not supported by strict mode')
  const out: Record<string, unknown> = {}
  for (const key of KEPT) if (Object.hasOwn(node, key)) out[key] = node[key]
  const format = own(node, 'format')
  if (typeof format === 'string' && STRICT_FORMATS.has(format)) out.format = format
  const branches = own(node, 'anyOf') ?? own(node, 'oneOf')
  // oneOf becomes anyOf: strict mode has no oneOf, and "at least one" only loosens "exactly one".
  if (Array.isArray(branches)) out.anyOf = branches.map((branch, i) => rewrite(branch, childPath(path, 'anyOf', i), depth))
  const types = typeNames(node)
  const isObject = types.includes('object') || (types.length === 0 && isRecord(own(node, 'properties')))
  if (isObject) Object.assign(out, strictObject(node, path, depth))
  if (types.includes('array') || (types.length === 0 && own(node, 'items') !== undefined)) out.items = strictItems(node, path, depth)
  if (types.length === 0 && !isObject && out.items === undefined && out.anyOf === undefined && out.enum === undefined && out.const === undefined && out.$ref === undefined) {
    throw new SchemaNotExpressible(path, 'a value of any type (no type) cannot be strict')
  }
  return out
}

function strictObject (node: Record<string, unknown>, path: string, depth: number): Record<string, unknown> {
  if (own(node, 'patternProperties') !== undefined) throw new SchemaNotExpressible(path, 'patternProperties is not supported by strict mode')
  const properties = own(node, 'properties')
  const extra = own(node, 'additionalProperties')
  if (extra !== undefined && extra !== false) throw new SchemaNotExpressible(path, 'an object open to any property (additionalProperties) cannot be strict')
  if (!isRecord(properties) || Object.keys(properties).length === 0) {
    // An object that declares no property is a free-form map unless it explicitly allows none.
    // At the root it is a tool without arguments (what most such tools mean).
    if (extra !== false && path !== '') throw new SchemaNotExpressible(path, 'an object without declared properties cannot be strict')
    return { type: 'object', properties: {}, required: [], additionalProperties: false }
  }
  const required = new Set(Array.isArray(own(node, 'required')) ? node.required as unknown[] : [])
  const strictProperties: Record<string, unknown> = {}
  for (const [name, schema] of Object.entries(properties)) {
    const converted = rewrite(schema, childPath(path, 'properties', name), depth + 1)
    strictProperties[name] = required.has(name) || allowsNull(schema) ? converted : nullable(converted)
  }
  return { properties: strictProperties, required: Object.keys(properties), additionalProperties: false }
}

function strictItems (node: Record<string, unknown>, path: string, depth: number): Record<string, unknown> {
  const items = own(node, 'items')
  if (Array.isArray(items) || own(node, 'prefixItems') !== undefined) throw new SchemaNotExpressible(path, 'tuple arrays are not supported by strict mode')
  if (items === undefined) throw new SchemaNotExpressible(path, 'an array of values of any type cannot be strict')
  return rewrite(items, childPath(path, 'items'), depth + 1)
}

/** The same schema, also accepting null: how strict mode says "may be left out". */
function nullable (schema: Record<string, unknown>): Record<string, unknown> {
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] }
  if (schema.$ref !== undefined || schema.const !== undefined || schema.type === undefined) {
    const { description, ...rest } = schema
    return { ...(description === undefined ? {} : { description }), anyOf: [rest, { type: 'null' }] }
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type]
  const out: Record<string, unknown> = { ...schema, type: [...types, 'null'] }
  if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null]
  return out
}
