// Strict-mode definitions (GET /definitions?strict=true) make every property required and the
// optional ones nullable, so a model that means "leave it out" sends null. Dispatch reads a null
// for a property the tool's own schema does not require, and does not allow to be null, as absent:
// the same call then works whichever definitions the model was given. A null where the schema
// requires the property, or where null is a real value the schema allows, stays as it is.
import type { JsonSchema } from './document.ts'
import { isRecord } from '../shared/objects.ts'
import { exceedsMaxItems, ownValue, resolveSchema } from './schema-types.ts'

// Values come from a model: bound the walk, as coercion does.
const MAX_DEPTH = 64

/** `args` without the nulls of optional properties (nested objects and array items too); the same object when none. */
export function dropOptionalNulls (args: Record<string, unknown>, parameters: JsonSchema): Record<string, unknown> {
  return dropInObject(args, parameters, parameters, 0)
}

function dropInObject (value: Record<string, unknown>, schema: unknown, root: JsonSchema, depth: number): Record<string, unknown> {
  const resolved = resolveSchema(schema, root)
  const properties = resolved === undefined ? undefined : ownValue(resolved, 'properties')
  if (depth > MAX_DEPTH || !isRecord(properties)) return value
  const required = ownValue(resolved!, 'required')
  let out = value
  for (const [key, item] of Object.entries(value)) {
    const property = ownValue(properties, key)
    if (property === undefined) continue
    let replaced: unknown = item
    if (item === null) {
      if (Array.isArray(required) && required.includes(key)) continue
      if (acceptsNull(property, root)) continue
      replaced = undefined
    } else {
      replaced = dropInValue(item, property, root, depth + 1)
      if (replaced === item) continue
    }
    if (out === value) out = { ...value }
    if (replaced === undefined) delete out[key]
    else out[key] = replaced
  }
  return out
}

function dropInValue (value: unknown, schema: unknown, root: JsonSchema, depth: number): unknown {
  if (isRecord(value)) return dropInObject(value, schema, root, depth)
  if (!Array.isArray(value)) return value
  const resolved = resolveSchema(schema, root)
  const items = resolved === undefined ? undefined : ownValue(resolved, 'items')
  if (!isRecord(items) || exceedsMaxItems(value, resolved!)) return value
  let changed = false
  const out = value.map((item) => {
    const next = isRecord(item) ? dropInObject(item, items, root, depth + 1) : item
    changed ||= next !== item
    return next
  })
  return changed ? out : value
}

/** Whether the property's own schema lets null through: then null is a value, not "absent". */
function acceptsNull (schema: unknown, root: JsonSchema): boolean {
  if (schema === true) return true
  const resolved = resolveSchema(schema, root)
  if (resolved === undefined) return false
  // A schema with no type restriction at all (`{}`, a description only) accepts null too.
  const restricting = ['type', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', '$ref', 'not']
  if (!restricting.some((key) => Object.hasOwn(resolved, key))) return true
  const type = ownValue(resolved, 'type')
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true
  if (Array.isArray(ownValue(resolved, 'enum')) && (resolved.enum as unknown[]).includes(null)) return true
  if (Object.hasOwn(resolved, 'const') && resolved.const === null) return true
  const branches = ownValue(resolved, 'anyOf') ?? ownValue(resolved, 'oneOf')
  return Array.isArray(branches) && branches.some((branch) => acceptsNull(branch, root))
}
