// Normalises the input schema of an MCP tool before it reaches the registry. The schema comes from
// a server we do not control, so this is a bounded copy that never throws and never evaluates
// anything: depth, node and character budgets, no `$id`, no remote `$ref`, no `__proto__` keys.
import type { JsonSchema } from './document.ts'
import { isRecord, messageOf } from '../shared/objects.ts'
import { DEFAULT_SCHEMA_LIMITS, Normalizer, type SchemaLimits } from './normalizer.ts'

export { DEFAULT_SCHEMA_LIMITS, type SchemaLimits }
import { resolvePointer } from './pointers.ts'

export { rewriteDefinitionsPointer } from './pointers.ts'

export type SchemaNormalization =
  | { ok: true, schema: JsonSchema, notes: string[], warnings: string[] }
  | { ok: false, reason: string }

/** Forces the top level to an object schema and lifts a bare top-level `$ref` (OpenAI does not follow it). */
function tidyRoot (root: Record<string, unknown>, notes: string[]): Record<string, unknown> {
  let out = root
  if (typeof out.$ref === 'string' && out.properties === undefined) {
    const target = resolvePointer(out, out.$ref)
    if (isRecord(target) && target.$ref === undefined) {
      const { $ref: _ref, ...rest } = out
      out = { ...target, ...rest }
      notes.push('/: top-level $ref inlined')
    }
  }
  if (out.type !== 'object') {
    if (out.type !== undefined) notes.push(`/: top-level type ${JSON.stringify(out.type)} forced to "object"`)
    out.type = 'object'
  }
  if (!isRecord(out.properties)) out.properties = {}
  if (Array.isArray(out.required)) {
    const properties = out.properties as Record<string, unknown>
    out.required = (out.required as string[]).filter((name) => Object.hasOwn(properties, name))
    if ((out.required as string[]).length === 0) delete out.required
  }
  return out
}

/** A local ref that points nowhere would make the validator refuse the whole schema at the first call. */
function dropUnresolvableRefs (root: Record<string, unknown>, normalizer: Normalizer): void {
  for (const holder of normalizer.refHolders) {
    const ref = holder.$ref as string
    const known = ref.startsWith('#/') || ref === '#' ? resolvePointer(root, ref) !== undefined : normalizer.anchors.has(ref.slice(1))
    if (!known) {
      normalizer.notes.push(`unresolvable reference ${JSON.stringify(ref).slice(0, 200)} removed`)
      delete holder.$ref
    }
  }
}

/**
 * A safe, self-contained copy of an MCP tool's `inputSchema`: missing → `{ type: 'object',
 * properties: {} }`; `definitions` → `$defs` (local refs rewritten); nullable unions collapsed;
 * `required` trimmed to `properties`; `type: 'object'` where `properties` imply it; the top level
 * always an object. An absurd schema (too deep, too big) is refused with a reason. Never throws.
 */
export function normalizeInputSchema (input: unknown, limits: Partial<SchemaLimits> = {}): SchemaNormalization {
  if (!isRecord(input)) {
    return { ok: true, schema: { type: 'object', properties: {} }, notes: input === undefined ? [] : ['/: not an object schema; replaced by an empty one'], warnings: [] }
  }
  const normalizer = new Normalizer({ ...DEFAULT_SCHEMA_LIMITS, ...limits })
  try {
    const root = tidyRoot(normalizer.schema(input, 0, '') as Record<string, unknown>, normalizer.notes)
    dropUnresolvableRefs(root, normalizer)
    return { ok: true, schema: root, notes: normalizer.notes, warnings: normalizer.warnings }
  } catch (err) {
    // Refused (over a budget, saying which), a RangeError from an absurdly deep structure, or
    // anything else unexpected: refuse with the reason, never throw.
    return { ok: false, reason: `input schema refused: ${messageOf(err)}` }
  }
}
