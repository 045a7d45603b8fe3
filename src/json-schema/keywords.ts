// How the MCP schema normaliser copies each keyword of a schema object: a table of small rules,
// tried in order, the first that names the keyword applies; anything no rule names is plain data.
import { linearPatternProblem } from './linear-regexp.ts'
import { isRecord } from '../shared/objects.ts'
import { rewriteDefinitionsPointer } from './pointers.ts'
import { ANCHOR_KEYWORDS, JSON_TYPES, REF_KEYWORDS, SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_SINGLE } from './vocabulary.ts'

/** One keyword of a schema object being copied. */
export interface Keyword {
  readonly key: string
  readonly value: unknown
  /** Its path, for notes. */
  readonly at: string
  /** The depth of the schema object that holds it. */
  readonly depth: number
  /** The copy of that object, being built. */
  readonly out: Record<string, unknown>
  /** `definitions` members met so far, merged under `$defs` once the object is done. */
  readonly definitions: Record<string, unknown>
}

/** What a keyword's rule asks of the copy it is part of (normalizer.ts's Normalizer). */
export interface SchemaWalker {
  readonly notes: string[]
  readonly warnings: string[]
  readonly refHolders: Array<Record<string, unknown>>
  readonly anchors: Set<string>
  visit: (depth: number) => void
  count: (text: string) => void
  data: (value: unknown, depth: number) => unknown
  schema: (value: unknown, depth: number, path: string) => unknown
  schemaMap: (map: Record<string, unknown>, depth: number, path: string, patterns: boolean) => Record<string, unknown>
  dependencies: (map: Record<string, unknown>, depth: number, path: string) => Record<string, unknown>
}

export type KeywordRule = (normalizer: SchemaWalker, keyword: Keyword) => void

export function compiles (pattern: string): boolean {
  try {
    // Built, never run: Ajv compiles patterns with the `u` flag, so one that fails here would break it.
    RegExp(pattern, 'u')
    return true
  } catch {
    return false
  }
}

/** The known type names in a `type` value (one name or a list), or undefined when none is left. */
function jsonTypes (value: unknown): string | string[] | undefined {
  if (typeof value === 'string') return JSON_TYPES.has(value) ? value : undefined
  if (!Array.isArray(value)) return undefined
  const types = [...new Set(value.filter((t): t is string => typeof t === 'string' && JSON_TYPES.has(t)))]
  return types.length === 0 ? undefined : types
}

/** Each member of a list of subschemas, normalised (the list itself is a node too). */
function schemaList (normalizer: SchemaWalker, list: unknown[], depth: number, at: string): unknown[] {
  normalizer.visit(depth + 1)
  return list.map((member, i) => normalizer.schema(member, depth + 2, `${at}/${i}`))
}

// $id would re-base the refs below it on a URL never fetched, and clash in the validator's schema cache.
const dropId: KeywordRule = (normalizer, { at }) => {
  normalizer.notes.push(`${at}: removed`)
}

// Only the root's $schema picks the dialect; one further down would switch dialects mid-schema.
const keepRootDialect: KeywordRule = (normalizer, { value, depth, out }) => {
  if (depth === 0 && typeof value === 'string') out.$schema = normalizer.data(value, depth + 1)
}

// A local ref stays (pointing at $defs); a remote one would make the validator fetch, or refuse the schema.
const keepLocalRef: KeywordRule = (normalizer, { key, value, at, out }) => {
  if (typeof value === 'string' && value.startsWith('#')) {
    normalizer.count(value)
    out[key] = rewriteDefinitionsPointer(value)
    if (key === '$ref') normalizer.refHolders.push(out)
  } else {
    normalizer.notes.push(`${at}: remote reference ${JSON.stringify(String(value)).slice(0, 200)} removed`)
  }
}

// Anchors are what `#name` refs point at: kept, and remembered for the final check of refs.
const keepAnchor: KeywordRule = (normalizer, { key, value, out }) => {
  if (typeof value !== 'string') return
  normalizer.count(value)
  out[key] = value
  normalizer.anchors.add(value)
}

// Each member of a map of subschemas is normalised too; `definitions` is gathered, to become $defs.
const copySchemaMap: KeywordRule = (normalizer, { key, value, at, depth, out, definitions }) => {
  if (!isRecord(value)) {
    normalizer.notes.push(`${at}: not an object; removed`)
    return
  }
  const map = normalizer.schemaMap(value, depth + 1, at, key === 'patternProperties')
  if (key === 'definitions') Object.assign(definitions, map)
  else out[key] = map
}

// A single subschema is normalised like any other schema.
const copySubschema: KeywordRule = (normalizer, { key, value, at, depth, out }) => {
  out[key] = normalizer.schema(value, depth + 1, at)
}

// Each member of allOf, anyOf... is normalised; anything but a list there would not compile.
const copySchemaList: KeywordRule = (normalizer, { key, value, at, depth, out }) => {
  if (Array.isArray(value)) out[key] = schemaList(normalizer, value, depth, at)
  else normalizer.notes.push(`${at}: not an array; removed`)
}

// items is one schema, or (before draft 2020-12) a tuple of them. An object item without
// `properties` gets an empty one: strict function schemas (OpenAI's) refuse an object without it.
const copyItems: KeywordRule = (normalizer, { value, at, depth, out }) => {
  if (Array.isArray(value)) {
    out.items = schemaList(normalizer, value, depth, at)
    return
  }
  const items = normalizer.schema(value, depth + 1, at)
  if (isRecord(items) && items.type === 'object' && items.properties === undefined) {
    items.properties = {}
    normalizer.notes.push(`${at}: object items without properties given an empty properties`)
  }
  out.items = items
}

// dependencies (drafts 4 to 7) maps a name to the names it requires or to a schema; each kind is kept as such.
const copyDependencies: KeywordRule = (normalizer, { value, at, depth, out }) => {
  if (isRecord(value)) out.dependencies = normalizer.dependencies(value, depth + 1, at)
}

// An unknown type name would make the validator refuse the whole schema; the known ones are kept, once each.
const keepKnownTypes: KeywordRule = (normalizer, { value, at, out }) => {
  const type = jsonTypes(value)
  if (type === undefined) normalizer.notes.push(`${at}: ${JSON.stringify(value)?.slice(0, 200)} is not a JSON type; removed`)
  else out.type = type
}

// required must list names, once each; names without a property are dropped later, when the object is tidied.
const keepRequiredNames: KeywordRule = (normalizer, { value, out }) => {
  if (!Array.isArray(value)) return
  const names = [...new Set(value.filter((name): name is string => typeof name === 'string'))]
  out.required = names
  for (const name of names) normalizer.count(name)
}

// A pattern the validator cannot compile would fail every call of the tool. One that only the
// linear-time engine cannot run (lookaround, backreferences: zod's email pattern has lookaheads) is
// dropped with a warning: the tool stays usable, and the server still checks its own inputs.
const keepCompilingPattern: KeywordRule = (normalizer, { value, at, out }) => {
  if (typeof value !== 'string' || !compiles(value)) {
    normalizer.notes.push(`${at}: not a valid regular expression; removed`)
    return
  }
  normalizer.count(value)
  const problem = linearPatternProblem(value)
  if (problem === undefined) out.pattern = value
  else normalizer.warnings.push(`${at}: ${JSON.stringify(value).slice(0, 200)} dropped: the linear-time engine cannot run it (${problem}); the server still checks it`)
}

// Everything else (enum, const, default, annotations, unknown keywords) is data: copied as is, within budget.
const copyData: KeywordRule = (normalizer, { key, value, depth, out }) => {
  const copy = normalizer.data(value, depth + 1)
  if (copy !== undefined) out[key] = copy
}

const RULES: ReadonlyArray<readonly [ReadonlySet<string>, KeywordRule]> = [
  [new Set(['$id']), dropId],
  [new Set(['$schema']), keepRootDialect],
  [REF_KEYWORDS, keepLocalRef],
  [ANCHOR_KEYWORDS, keepAnchor],
  [SCHEMA_MAPS, copySchemaMap],
  [SCHEMA_SINGLE, copySubschema],
  [SCHEMA_LISTS, copySchemaList],
  [new Set(['items']), copyItems],
  [new Set(['dependencies']), copyDependencies],
  [new Set(['type']), keepKnownTypes],
  [new Set(['required']), keepRequiredNames],
  [new Set(['pattern']), keepCompilingPattern]
]

/** The rule for a keyword: the first in the table that names it, else plain data. */
export function ruleFor (key: string): KeywordRule {
  for (const [keys, rule] of RULES) if (keys.has(key)) return rule
  return copyData
}
