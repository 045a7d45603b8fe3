// Normalises the input schema of an MCP tool before it reaches the registry. The schema comes from
// a server we do not control, so this is a bounded copy that never throws and never evaluates
// anything: depth, node and character budgets, no `$id`, no remote `$ref`, no `__proto__` keys.
import type { JsonSchema } from '../registry/types.ts'
import { isRecord } from '../objects.ts'

export interface SchemaLimits {
  /** Nesting of objects and arrays; deeper is refused. */
  maxDepth: number
  /** Objects, arrays and scalars visited. */
  maxNodes: number
  /** Characters of every key and string together. */
  maxChars: number
}

export const DEFAULT_SCHEMA_LIMITS: Readonly<SchemaLimits> = Object.freeze({ maxDepth: 64, maxNodes: 20_000, maxChars: 1_000_000 })

export type SchemaNormalization =
  | { ok: true, schema: JsonSchema, notes: string[] }
  | { ok: false, reason: string }

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])
// Keywords whose value maps names to schemas, holds one schema, or a list of schemas.
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])
const SCHEMA_SINGLE = new Set(['additionalProperties', 'additionalItems', 'contains', 'propertyNames', 'not', 'if', 'then', 'else',
  'unevaluatedProperties', 'unevaluatedItems', 'contentSchema'])
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems'])
const REF_KEYWORDS = new Set(['$ref', '$dynamicRef', '$recursiveRef'])

class Refused extends Error {}

function compiles (pattern: string): boolean {
  try {
    // Built, never run: Ajv compiles patterns with the `u` flag, so one that fails here would break it.
    RegExp(pattern, 'u')
    return true
  } catch {
    return false
  }
}

/** Rewrites `definitions` segments that sit where a keyword is expected; a property called "definitions" is left alone. */
export function rewriteDefinitionsPointer (ref: string): string {
  if (!ref.startsWith('#/')) return ref
  const segments = ref.slice(2).split('/')
  let at: 'schema' | 'name' | 'index' | 'items' | 'data' = 'schema'
  const out = segments.map((segment) => {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~')
    switch (at) {
      case 'schema':
        if (SCHEMA_MAPS.has(key)) at = 'name'
        else if (SCHEMA_LISTS.has(key)) at = 'index'
        else if (key === 'items') at = 'items'
        else if (!SCHEMA_SINGLE.has(key)) at = 'data'
        return key === 'definitions' ? '$defs' : segment
      case 'name':
      case 'index':
        at = 'schema'
        return segment
      case 'items':
        // `items/3` is a tuple member; `items/properties` is a keyword of the single items schema.
        if (/^\d+$/.test(key)) {
          at = 'schema'
          return segment
        }
        at = SCHEMA_MAPS.has(key) ? 'name' : SCHEMA_LISTS.has(key) ? 'index' : key === 'items' ? 'items' : SCHEMA_SINGLE.has(key) ? 'schema' : 'data'
        return key === 'definitions' ? '$defs' : segment
      default:
        return segment
    }
  })
  return `#/${out.join('/')}`
}

class Normalizer {
  readonly notes: string[] = []
  /** Objects holding a local `$ref`, checked once the whole copy exists. */
  readonly refHolders: Array<Record<string, unknown>> = []
  readonly anchors = new Set<string>()
  #nodes = 0
  #chars = 0
  readonly #limits: SchemaLimits

  constructor (limits: SchemaLimits) {
    this.#limits = limits
  }

  #visit (depth: number): void {
    if (depth > this.#limits.maxDepth) throw new Refused(`it is nested deeper than ${this.#limits.maxDepth} levels`)
    if (++this.#nodes > this.#limits.maxNodes) throw new Refused(`it has more than ${this.#limits.maxNodes} nodes`)
  }

  #count (text: string): void {
    this.#chars += text.length
    if (this.#chars > this.#limits.maxChars) throw new Refused(`it holds more than ${this.#limits.maxChars} characters`)
  }

  /** A JSON value in a data position (enum, const, default, examples, unknown keywords): copied as is, within budget. */
  data (value: unknown, depth: number): unknown {
    this.#visit(depth)
    if (value === null || typeof value === 'boolean') return value
    if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
    if (typeof value === 'string') {
      this.#count(value)
      return value
    }
    if (Array.isArray(value)) {
      const out: unknown[] = []
      for (const item of value) {
        const copy = this.data(item, depth + 1)
        out.push(copy === undefined ? null : copy)
      }
      return out
    }
    if (isRecord(value)) {
      const out: Record<string, unknown> = {}
      for (const [key, item] of Object.entries(value)) {
        if (key === '__proto__') continue
        this.#count(key)
        const copy = this.data(item, depth + 1)
        if (copy !== undefined) out[key] = copy
      }
      return out
    }
    // Functions, symbols, bigints: not JSON, so not part of any schema a server could have sent.
    return undefined
  }

  schema (value: unknown, depth: number, path: string): unknown {
    if (typeof value === 'boolean') {
      this.#visit(depth)
      return value
    }
    if (!isRecord(value)) {
      this.#visit(depth)
      this.notes.push(`${path}: a schema must be an object or a boolean; replaced by {}`)
      return {}
    }
    this.#visit(depth)
    const out: Record<string, unknown> = {}
    const definitions: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__') continue
      this.#count(key)
      const at = `${path}/${key}`
      if (key === '$id') {
        this.notes.push(`${at}: removed`)
      } else if (key === '$schema') {
        if (depth === 0 && typeof item === 'string') out.$schema = this.data(item, depth + 1)
      } else if (REF_KEYWORDS.has(key)) {
        if (typeof item === 'string' && item.startsWith('#')) {
          this.#count(item)
          out[key] = rewriteDefinitionsPointer(item)
          if (key === '$ref') this.refHolders.push(out)
        } else {
          this.notes.push(`${at}: remote reference ${JSON.stringify(String(item)).slice(0, 200)} removed`)
        }
      } else if (key === '$anchor' || key === '$dynamicAnchor') {
        if (typeof item === 'string') {
          this.#count(item)
          out[key] = item
          this.anchors.add(item)
        }
      } else if (SCHEMA_MAPS.has(key)) {
        if (!isRecord(item)) {
          this.notes.push(`${at}: not an object; removed`)
          continue
        }
        const map = this.#schemaMap(item, depth + 1, at, key === 'patternProperties')
        if (key === 'definitions') Object.assign(definitions, map)
        else out[key] = map
      } else if (SCHEMA_SINGLE.has(key)) {
        out[key] = this.schema(item, depth + 1, at)
      } else if (SCHEMA_LISTS.has(key)) {
        if (Array.isArray(item)) {
          this.#visit(depth + 1)
          out[key] = item.map((member, i) => this.schema(member, depth + 2, `${at}/${i}`))
        } else {
          this.notes.push(`${at}: not an array; removed`)
        }
      } else if (key === 'items') {
        if (Array.isArray(item)) {
          this.#visit(depth + 1)
          out.items = item.map((member, i) => this.schema(member, depth + 2, `${at}/${i}`))
        } else {
          out.items = this.schema(item, depth + 1, at)
        }
      } else if (key === 'dependencies') {
        if (isRecord(item)) out.dependencies = this.#dependencies(item, depth + 1, at)
      } else if (key === 'type') {
        const type = this.#type(item)
        if (type === undefined) this.notes.push(`${at}: ${JSON.stringify(item)?.slice(0, 200)} is not a JSON type; removed`)
        else out.type = type
      } else if (key === 'required') {
        if (Array.isArray(item)) {
          out.required = [...new Set(item.filter((name): name is string => typeof name === 'string'))]
          for (const name of out.required as string[]) this.#count(name)
        }
      } else if (key === 'pattern') {
        if (typeof item === 'string' && compiles(item)) {
          this.#count(item)
          out.pattern = item
        } else {
          this.notes.push(`${at}: not a valid regular expression; removed`)
        }
      } else {
        const copy = this.data(item, depth + 1)
        if (copy !== undefined) out[key] = copy
      }
    }
    if (Object.keys(definitions).length > 0) {
      // Both present: $defs is the newer spelling and wins a clash.
      out.$defs = { ...definitions, ...(isRecord(out.$defs) ? out.$defs : {}) }
    }
    return this.#tidy(out, path)
  }

  #schemaMap (map: Record<string, unknown>, depth: number, path: string, patterns: boolean): Record<string, unknown> {
    this.#visit(depth)
    const out: Record<string, unknown> = {}
    for (const [name, item] of Object.entries(map)) {
      if (name === '__proto__') {
        this.notes.push(`${path}: the key "__proto__" was removed`)
        continue
      }
      this.#count(name)
      if (patterns && !compiles(name)) {
        this.notes.push(`${path}/${name}: not a valid regular expression; removed`)
        continue
      }
      out[name] = this.schema(item, depth + 1, `${path}/${name}`)
    }
    return out
  }

  #dependencies (map: Record<string, unknown>, depth: number, path: string): Record<string, unknown> {
    this.#visit(depth)
    const out: Record<string, unknown> = {}
    for (const [name, item] of Object.entries(map)) {
      if (name === '__proto__') continue
      this.#count(name)
      out[name] = Array.isArray(item)
        ? item.filter((dep): dep is string => typeof dep === 'string')
        : this.schema(item, depth + 1, `${path}/${name}`)
    }
    return out
  }

  #type (value: unknown): string | string[] | undefined {
    if (typeof value === 'string') return JSON_TYPES.has(value) ? value : undefined
    if (!Array.isArray(value)) return undefined
    const types = [...new Set(value.filter((t): t is string => typeof t === 'string' && JSON_TYPES.has(t)))]
    return types.length === 0 ? undefined : types
  }

  /** Per-object fixes: nullable unions collapsed, required trimmed to the properties, implied object type. */
  #tidy (schema: Record<string, unknown>, path: string): Record<string, unknown> {
    const collapsed = collapseNullable(schema)
    if (collapsed !== schema) this.notes.push(`${path || '/'}: nullable union collapsed into a type list`)
    const out = collapsed
    if (isRecord(out.properties) && Array.isArray(out.required)) {
      const properties = out.properties
      const kept = (out.required as string[]).filter((name) => Object.hasOwn(properties, name))
      if (kept.length !== out.required.length) {
        this.notes.push(`${path || '/'}: required names without a property dropped`)
        out.required = kept
      }
    }
    if (Array.isArray(out.required) && out.required.length === 0) delete out.required
    if (out.type === undefined && isRecord(out.properties)) out.type = 'object'
    return out
  }
}

/** A branch that only says "null" (a description or title may ride along). */
function isNullBranch (value: unknown): boolean {
  return isRecord(value) && value.type === 'null' &&
    Object.keys(value).every((key) => key === 'type' || key === 'description' || key === 'title')
}

/**
 * `anyOf: [X, {type: 'null'}]` (or oneOf, either order) becomes X with `null` added to its type
 * list, which both the coercion step and Ajv read as "nullable". A branch without a plain type
 * (a `$ref`, a union) stays an anyOf: coercion and validation already understand a null branch.
 */
function collapseNullable (schema: Record<string, unknown>): Record<string, unknown> {
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

function resolvePointer (root: unknown, ref: string): unknown {
  if (ref === '#') return root
  if (!ref.startsWith('#/')) return undefined
  let node: unknown = root
  for (const raw of ref.slice(2).split('/')) {
    let key: string
    try {
      key = decodeURIComponent(raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    } catch {
      return undefined
    }
    if (Array.isArray(node) && /^\d+$/.test(key)) node = node[Number(key)]
    else if (isRecord(node) && Object.hasOwn(node, key)) node = node[key]
    else return undefined
  }
  return node
}

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

/**
 * A safe, self-contained copy of an MCP tool's `inputSchema`: missing → `{ type: 'object',
 * properties: {} }`; `definitions` → `$defs` (local refs rewritten); nullable unions collapsed;
 * `required` trimmed to `properties`; `type: 'object'` where `properties` imply it; the top level
 * always an object. An absurd schema (too deep, too big) is refused with a reason. Never throws.
 */
export function normalizeInputSchema (input: unknown, limits: Partial<SchemaLimits> = {}): SchemaNormalization {
  if (!isRecord(input)) {
    return { ok: true, schema: { type: 'object', properties: {} }, notes: input === undefined ? [] : ['/: not an object schema; replaced by an empty one'] }
  }
  const normalizer = new Normalizer({ ...DEFAULT_SCHEMA_LIMITS, ...limits })
  try {
    const copy = normalizer.schema(input, 0, '') as Record<string, unknown>
    const root = tidyRoot(copy, normalizer.notes)
    // A local ref that points nowhere would make the validator refuse the whole schema at the first call.
    for (const holder of normalizer.refHolders) {
      const ref = holder.$ref as string
      const known = ref.startsWith('#/') || ref === '#' ? resolvePointer(root, ref) !== undefined : normalizer.anchors.has(ref.slice(1))
      if (!known) {
        normalizer.notes.push(`unresolvable reference ${JSON.stringify(ref).slice(0, 200)} removed`)
        delete holder.$ref
      }
    }
    return { ok: true, schema: root, notes: normalizer.notes }
  } catch (err) {
    if (err instanceof Refused) return { ok: false, reason: `input schema refused: ${err.message}` }
    // A RangeError from an absurdly deep structure, or anything else unexpected: refuse, never throw.
    return { ok: false, reason: `input schema refused: ${(err as Error)?.message ?? String(err)}` }
  }
}
