// Collapses the nullable unions schema generators write for optional fields (`anyOf: [X, {type:
// 'null'}]`) into a type list, which the argument coercion step and the validator both read as
// "nullable". An optional property whose union only meant "may be left out" (default null) becomes
// the plain type: models then leave it out instead of sending null.
import { isRecord } from '../shared/objects.ts'

/** A branch that only says "null" (a description or title may ride along). */
function isNullBranch (value: unknown): boolean {
  return isRecord(value) && value.type === 'null' &&
    Object.keys(value).every((key) => key === 'type' || key === 'description' || key === 'title')
}

/**
 * `anyOf: [X, {type: 'null'}]` (or oneOf, either order) becomes X with `null` added to its type
 * list. A branch without a plain type (a `$ref`, a union) stays an anyOf: coercion and validation
 * already understand a null branch. Returns `schema` itself when there is nothing to collapse.
 */
export function collapseNullable (schema: Record<string, unknown>): Record<string, unknown> {
  if (schema.type !== undefined) return schema
  for (const key of ['anyOf', 'oneOf']) {
    const branches = schema[key]
    if (!Array.isArray(branches) || branches.length !== 2) continue
    const nullAt = branches.findIndex(isNullBranch)
    if (nullAt === -1) continue
    const other = branches[1 - nullAt]
    if (!isRecord(other) || isNullBranch(other) || other.$ref !== undefined) continue
    if (typeof other.type !== 'string' && !Array.isArray(other.type)) continue
    const { [key]: _union, ...rest } = schema
    // The outer keywords (description, default, title) describe the property and win.
    const merged: Record<string, unknown> = { ...other, ...rest }
    const types = Array.isArray(other.type) ? [...other.type as string[]] : [other.type]
    if (!types.includes('null')) types.push('null')
    merged.type = types
    if (Object.hasOwn(merged, 'const')) {
      merged.enum = [merged.const, null]
      delete merged.const
    } else if (Array.isArray(merged.enum) && !merged.enum.includes(null)) {
      merged.enum = [...merged.enum, null]
    }
    return merged
  }
  return schema
}

/**
 * The optional properties of `properties` (not in `required`) that were collapsed from a nullable
 * union and default to null: null only stood for "not given", so the null, and the default, go.
 * `collapsed` holds the schemas collapseNullable made. Returns the names changed.
 */
export function dropOptionalNulls (properties: Record<string, unknown>, required: unknown, collapsed: WeakSet<object>): string[] {
  const requiredNames = new Set(Array.isArray(required) ? required : [])
  const changed: string[] = []
  for (const [name, property] of Object.entries(properties)) {
    if (requiredNames.has(name) || !isRecord(property) || !collapsed.has(property) || property.default !== null) continue
    const types = (property.type as string[]).filter((type) => type !== 'null')
    property.type = types.length === 1 ? types[0] : types
    if (Array.isArray(property.enum)) property.enum = property.enum.filter((value) => value !== null)
    delete property.default
    changed.push(name)
  }
  return changed
}
