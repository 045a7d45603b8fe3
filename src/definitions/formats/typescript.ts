// The tools as TypeScript declarations, for code mode: a model that writes a script calling
// `tools.<name>(args)` reads one `declare const tools: { ... }` instead of JSON schemas. The text is
// read by models, so it is compact (two-space indentation, no blank lines, one-line JSDoc where the
// text fits) and bounded: nesting deeper than MAX_DEPTH, a cyclic `$ref` and whatever lies past a
// tool's node budget become `unknown`, so a hostile schema cannot make the text grow without end.
import type { DeclaredTool, JsonSchema } from '../../registry/types.ts'
import { isRecord } from '../../shared/objects.ts'
import { resolvePointer } from '../../json-schema/pointers.ts'

/** What a declaration needs of a tool: the same three fields as a Chat Completions function. */
export type { DeclaredTool }

const MAX_DEPTH = 6
// Each `$ref` is inlined where it is used, so a few definitions that refer to each other many times
// could multiply; past this many schema nodes per tool, the rest is `unknown`.
const MAX_NODES = 2000
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/
const OPEN_OBJECT = '{ [key: string]: unknown }'
const HINT_KEYS = ['format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems', 'uniqueItems'] as const

interface Walk {
  readonly root: JsonSchema
  /** The `$ref`s being expanded, outermost first: one met again is a cycle. */
  readonly refs: string[]
  nodes: number
}

/** One declaration text for every tool: `declare const tools: { name(args: {...}): Promise<unknown> }`. */
export function typescriptDeclarations (tools: readonly DeclaredTool[]): string {
  const lines = ['declare const tools: {']
  for (const tool of tools) {
    lines.push(...docLines(tool.description, [], '  '))
    const args = typeOf(tool.parameters, { root: tool.parameters, refs: [], nodes: 0 }, 0, '  ')
    lines.push(`  ${propertyName(tool.name)}(args: ${args}): Promise<unknown>`)
  }
  lines.push('}')
  return `${lines.join('\n')}\n`
}

/** A JSON Schema as a TypeScript type; what it cannot say (or an empty schema) is `unknown`. */
export function typescriptTypeOf (schema: JsonSchema): string {
  return typeOf(schema, { root: schema, refs: [], nodes: 0 }, 0, '')
}

/** `indent` is the indentation of the line the type starts on: a multi-line object closes there. */
function typeOf (schema: unknown, walk: Walk, depth: number, indent: string): string {
  if (schema === false) return 'never'
  if (!isRecord(schema) || depth > MAX_DEPTH || ++walk.nodes > MAX_NODES) return 'unknown'
  const parts: string[] = []
  const own = ownType(schema, walk, depth, indent)
  if (typeof schema.$ref === 'string') parts.push(refType(schema.$ref, walk, depth, indent))
  if (Array.isArray(schema.allOf)) parts.push(...schema.allOf.map((member) => typeOf(member, walk, depth, indent)))
  for (const key of ['anyOf', 'oneOf'] as const) {
    const members = schema[key]
    if (Array.isArray(members) && members.length > 0) parts.push(union(members.map((member) => typeOf(member, walk, depth, indent))))
  }
  const known = parts.filter((part) => part !== 'unknown')
  // `type: object` beside a union of object shapes says nothing the shapes do not.
  if (own !== 'unknown' && !(own === OPEN_OBJECT && known.length > 0)) known.unshift(own)
  if (known.length === 0) return 'unknown'
  return known.length === 1 ? known[0] : known.map((part) => part.includes('|') ? `(${part})` : part).join(' & ')
}

/** What the schema says itself, without its `$ref` and combinators. */
function ownType (schema: JsonSchema, walk: Walk, depth: number, indent: string): string {
  let type: string
  if (Object.hasOwn(schema, 'const')) {
    type = literal(schema.const)
  } else if (Array.isArray(schema.enum)) {
    type = schema.enum.length === 0 ? 'never' : union(schema.enum.map(literal))
  } else {
    const names = typeNames(schema)
    type = names.length === 0 ? 'unknown' : union(names.map((name) => namedType(name, schema, walk, depth, indent)))
  }
  return schema.nullable === true && type !== 'unknown' ? union([type, 'null']) : type
}

function typeNames (schema: JsonSchema): string[] {
  if (typeof schema.type === 'string') return [schema.type]
  if (Array.isArray(schema.type)) return schema.type.filter((name): name is string => typeof name === 'string')
  if (isRecord(schema.properties) || schema.additionalProperties !== undefined) return ['object']
  if (schema.items !== undefined || Array.isArray(schema.prefixItems)) return ['array']
  return []
}

function namedType (name: string, schema: JsonSchema, walk: Walk, depth: number, indent: string): string {
  switch (name) {
    case 'string': case 'boolean': case 'null': case 'number': return name
    case 'integer': return 'number'
    case 'object': return objectType(schema, walk, depth, indent)
    case 'array': return arrayType(schema, walk, depth, indent)
    default: return 'unknown'
  }
}

function refType (ref: string, walk: Walk, depth: number, indent: string): string {
  // Local references only (`#`, `#/$defs/X`, any JSON pointer into the root); others are not followed.
  const target = resolvePointer(walk.root, ref)
  if (target === undefined || walk.refs.includes(ref)) return 'unknown'
  walk.refs.push(ref)
  try {
    return typeOf(target, walk, depth, indent)
  } finally {
    walk.refs.pop()
  }
}

function objectType (schema: JsonSchema, walk: Walk, depth: number, indent: string): string {
  const inner = `${indent}  `
  const properties = isRecord(schema.properties) ? Object.entries(schema.properties) : []
  const required = new Set(Array.isArray(schema.required) ? schema.required : [])
  const members: string[] = []
  const propertyTypes: string[] = []
  for (const [name, property] of properties) {
    const type = typeOf(property, walk, depth + 1, inner)
    propertyTypes.push(type)
    if (isRecord(property)) members.push(...docLines(property.description, hintsOf(property), inner))
    members.push(`${inner}${propertyName(name)}${required.has(name) ? '' : '?'}: ${type}`)
  }
  const additional = schema.additionalProperties
  let index: string | undefined
  if (isRecord(additional)) index = typeOf(additional, walk, depth + 1, inner)
  // An object without `properties` is a map of anything; one with them (even none) lists its keys.
  else if (additional === true || (additional === undefined && !isRecord(schema.properties))) index = 'unknown'
  if (index !== undefined && properties.length > 0) index = indexType(index, propertyTypes)
  if (index !== undefined && properties.length === 0 && !index.includes('\n')) return `{ [key: string]: ${index} }`
  if (index !== undefined) members.push(`${inner}[key: string]: ${index}`)
  return members.length === 0 ? '{}' : `{\n${members.join('\n')}\n${indent}}`
}

/** TypeScript requires every property to fit the index signature: it takes their types too. */
function indexType (index: string, propertyTypes: readonly string[]): string {
  const all = [index, ...propertyTypes]
  return all.some((type) => type === 'unknown' || type.includes('\n')) ? 'unknown' : union(all)
}

function arrayType (schema: JsonSchema, walk: Walk, depth: number, indent: string): string {
  // 2020-12 tuples are `prefixItems` (+ `items` for the rest); draft-07 ones `items: [...]` (+ `additionalItems`).
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined
  if (prefix === undefined) return arrayOf(schema.items === undefined ? 'unknown' : typeOf(schema.items, walk, depth + 1, indent))
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0
  const elements = prefix.map((item: unknown, i: number) => `${typeOf(item, walk, depth + 1, indent)}${i < minItems ? '' : '?'}`)
  const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items
  if (rest !== false) elements.push(`...${arrayOf(rest === undefined ? 'unknown' : typeOf(rest, walk, depth + 1, indent))}`)
  return `[${elements.join(', ')}]`
}

function arrayOf (type: string): string {
  return /[|&]/.test(type) ? `(${type})[]` : `${type}[]`
}

function union (types: readonly string[]): string {
  const distinct = [...new Set(types)]
  if (distinct.includes('unknown')) return 'unknown'
  const members = distinct.filter((type) => type !== 'never')
  return members.length === 0 ? 'never' : members.join(' | ')
}

/** A JSON value as a literal type; JSON text is valid TypeScript type syntax for every JSON value. */
function literal (value: unknown): string {
  const text = JSON.stringify(value)
  return text === undefined ? 'unknown' : text
}

function propertyName (name: string): string {
  if (IDENTIFIER.test(name)) return name
  const quoted = JSON.stringify(name).slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'")
  return `'${quoted.replaceAll('\u2028', '\\u2028').replaceAll('\u2029', '\\u2029')}'`
}

/** Constraints and the default, briefly: what a model needs to send a valid value at the first try. */
function hintsOf (schema: JsonSchema): string[] {
  const hints: string[] = []
  for (const key of HINT_KEYS) {
    const value = schema[key]
    if (typeof value === 'string' || typeof value === 'number' || value === true) hints.push(`${key}: ${value}`)
  }
  if (Object.hasOwn(schema, 'default')) {
    const value = literal(schema.default)
    if (value !== 'unknown') hints.push(`@default ${value}`)
  }
  return hints
}

// A JSDoc comment, on one line when the description fits on one; `*/` in the text is escaped so
// that it cannot end the comment early.
function docLines (description: unknown, hints: readonly string[], indent: string): string[] {
  const text = typeof description === 'string' ? description : ''
  const lines = text.replace(/\r\n?/g, '\n').split('\n').map((line) => line.trimEnd()).filter((line) => line.trim() !== '')
  const constraints = hints.filter((hint) => !hint.startsWith('@')).join(', ')
  const tags = hints.filter((hint) => hint.startsWith('@')).join(' ')
  const tail = [constraints === '' || lines.length === 0 ? constraints : `(${constraints})`, tags].filter((part) => part !== '').join(' ')
  if (lines.length <= 1) {
    const line = [lines[0] ?? '', tail].filter((part) => part !== '').join(' ')
    return line === '' ? [] : [`${indent}/** ${escapeComment(line)} */`]
  }
  if (tail !== '') lines.push(tail)
  return [`${indent}/**`, ...lines.map((line) => `${indent} * ${escapeComment(line)}`), `${indent} */`]
}

function escapeComment (text: string): string {
  return text.replaceAll('*/', '*\\/')
}
