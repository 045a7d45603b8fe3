// The bounded copy behind the MCP schema normaliser: budgets on depth, nodes and characters, data
// copied as plain JSON, schema objects copied keyword by keyword (keywords.ts) and tidied.
import { linearPatternProblem } from './linear-regexp.ts'
import { isRecord } from '../shared/objects.ts'
import { compiles, ruleFor, type SchemaWalker } from './keywords.ts'
import { collapseNullable, dropOptionalNulls } from './nullable.ts'

export interface SchemaLimits {
  /** Nesting of objects and arrays; deeper is refused. */
  maxDepth: number
  /** Objects, arrays and scalars visited. */
  maxNodes: number
  /** Characters of every key and string together. */
  maxChars: number
}

export const DEFAULT_SCHEMA_LIMITS: Readonly<SchemaLimits> = Object.freeze({ maxDepth: 64, maxNodes: 20_000, maxChars: 1_000_000 })

/** A schema over one of the budgets; its message says which. */
export class Refused extends Error {}

export class Normalizer implements SchemaWalker {
  readonly notes: string[] = []
  /** Checks the copy leaves out although the schema is valid (patterns RE2 cannot run): operators hear of them. */
  readonly warnings: string[] = []
  /** Objects holding a local `$ref`, checked once the whole copy exists. */
  readonly refHolders: Array<Record<string, unknown>> = []
  readonly anchors = new Set<string>()
  /** Schemas made by collapsing a nullable union, for the optional-with-default-null rule of their parent. */
  readonly #collapsed = new WeakSet<object>()
  #nodes = 0
  #chars = 0
  readonly #limits: SchemaLimits

  constructor (limits: SchemaLimits) {
    this.#limits = limits
  }

  /** Counts one node at `depth`; refuses past the depth or node budget. */
  visit (depth: number): void {
    if (depth > this.#limits.maxDepth) throw new Refused(`it is nested deeper than ${this.#limits.maxDepth} levels`)
    if (++this.#nodes > this.#limits.maxNodes) throw new Refused(`it has more than ${this.#limits.maxNodes} nodes`)
  }

  /** Counts the characters of a key or string; refuses past the budget. */
  count (text: string): void {
    this.#chars += text.length
    if (this.#chars > this.#limits.maxChars) throw new Refused(`it holds more than ${this.#limits.maxChars} characters`)
  }

  /** A JSON value in a data position (enum, const, default, examples, unknown keywords): copied as is, within budget. */
  data (value: unknown, depth: number): unknown {
    this.visit(depth)
    if (value === null || typeof value === 'boolean') return value
    if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
    if (typeof value === 'string') {
      this.count(value)
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
        this.count(key)
        const copy = this.data(item, depth + 1)
        if (copy !== undefined) out[key] = copy
      }
      return out
    }
    // Functions, symbols, bigints: not JSON, so not part of any schema a server could have sent.
    return undefined
  }

  /** A schema (object or boolean): each keyword copied by its rule, then the object tidied. */
  schema (value: unknown, depth: number, path: string): unknown {
    this.visit(depth)
    if (typeof value === 'boolean') return value
    if (!isRecord(value)) {
      this.notes.push(`${path}: a schema must be an object or a boolean; replaced by {}`)
      return {}
    }
    const out: Record<string, unknown> = {}
    const definitions: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__') continue
      this.count(key)
      ruleFor(key)(this, { key, value: item, at: `${path}/${key}`, depth, out, definitions })
    }
    if (Object.keys(definitions).length > 0) {
      // Both present: $defs is the newer spelling and wins a clash.
      out.$defs = { ...definitions, ...(isRecord(out.$defs) ? out.$defs : {}) }
    }
    return this.#tidy(out, path)
  }

  /** A map of names (or, for patternProperties, patterns) to schemas. */
  schemaMap (map: Record<string, unknown>, depth: number, path: string, patterns: boolean): Record<string, unknown> {
    this.visit(depth)
    const out: Record<string, unknown> = {}
    for (const [name, item] of Object.entries(map)) {
      if (name === '__proto__') {
        this.notes.push(`${path}: the key "__proto__" was removed`)
        continue
      }
      this.count(name)
      if (patterns && !compiles(name)) {
        this.notes.push(`${path}/${name}: not a valid regular expression; removed`)
        continue
      }
      // Dropping it would change which properties the tool accepts (additionalProperties then applies to them).
      const problem = patterns ? linearPatternProblem(name) : undefined
      if (problem !== undefined) throw new Refused(`${path}/${name}: the linear-time engine cannot run this pattern (${problem})`)
      out[name] = this.schema(item, depth + 1, `${path}/${name}`)
    }
    return out
  }

  /** `dependencies`: each name maps to the names it requires, or to a schema. */
  dependencies (map: Record<string, unknown>, depth: number, path: string): Record<string, unknown> {
    this.visit(depth)
    const out: Record<string, unknown> = {}
    for (const [name, item] of Object.entries(map)) {
      if (name === '__proto__') continue
      this.count(name)
      out[name] = Array.isArray(item)
        ? item.filter((dep): dep is string => typeof dep === 'string')
        : this.schema(item, depth + 1, `${path}/${name}`)
    }
    return out
  }

  /** Per-object fixes: nullable unions collapsed, required trimmed to the properties, implied object type. */
  #tidy (schema: Record<string, unknown>, path: string): Record<string, unknown> {
    const out = collapseNullable(schema)
    if (out !== schema) {
      this.#collapsed.add(out)
      this.notes.push(`${path || '/'}: nullable union collapsed into a type list`)
    }
    if (isRecord(out.properties)) {
      for (const name of dropOptionalNulls(out.properties, out.required, this.#collapsed)) {
        this.notes.push(`${path}/properties/${name}: optional, default null: null dropped from its type`)
      }
    }
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
