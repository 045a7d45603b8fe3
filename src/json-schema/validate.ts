// Validates arguments against a tool's parameters with Ajv. Each schema object is compiled once and
// the compiled function cached beside it (a WeakMap, so a deregistered tool's validator goes too).
// Every call is checked up to its first failure; a refused call's message then names every failing
// path when the schema is trusted (built-in tools, plugins) and the arguments are not huge. Untrusted
// MCP schemas are compiled without allErrors, as Ajv advises for schemas you do not control, and
// their patterns run on a linear-time engine (linear-regexp.ts) so that no pattern can freeze the gateway.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { JsonSchema } from './document.ts'
import { clipText } from '../shared/clip-text.ts'
import { linearRegExp } from './linear-regexp.ts'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

type Dialect = 'draft-07' | '2020-12'

function createAjv (dialect: Dialect, trusted: boolean, allErrors: boolean): Ajv {
  // strict: false because real-world schemas carry keywords Ajv does not know (examples, x-*);
  // addUsedSchema: false so two tools whose schemas share an $id do not collide.
  const options = {
    allErrors,
    strict: false,
    addUsedSchema: false,
    validateFormats: true,
    ...(trusted ? {} : { code: { regExp: linearRegExp } })
  }
  const ajv = dialect === '2020-12' ? new Ajv2020(options) : new Ajv(options)
  addFormats(ajv)
  return ajv
}

/**
 * How a schema is checked: `first` stops at the first failure (every call is checked so, whatever
 * its size); `report` collects every failure, for the message of a refused call whose arguments are
 * small enough (REPORT_NODE_LIMIT) that collecting them costs little. Untrusted MCP schemas are only
 * ever checked `first`, as Ajv advises for schemas you do not control.
 */
type Mode = 'first' | 'report'

const instances = new Map<string, Ajv>()

/** Schemas that declare draft 2020-12 (MCP servers built on zod 4 do) need Ajv's 2020 dialect. */
function ajvFor (schema: JsonSchema, trusted: boolean, mode: Mode): Ajv {
  const dialect: Dialect = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12') ? '2020-12' : 'draft-07'
  const key = `${dialect}:${trusted}:${mode}`
  let ajv = instances.get(key)
  if (ajv === undefined) {
    ajv = createAjv(dialect, trusted, mode === 'report')
    instances.set(key, ajv)
  }
  return ajv
}
// One cache per Ajv instance: a schema object compiled for one trust level or mode is not reused for another.
const compiled = new Map<string, WeakMap<JsonSchema, ValidateFunction | Error>>()

/** Ajv refuses a `$schema` it has no meta-schema for (draft-04, 2019-09); those validate as draft-07. */
function withKnownDialect (schema: JsonSchema): JsonSchema {
  const declared = schema.$schema
  if (typeof declared !== 'string' || declared.includes('2020-12') || declared.includes('draft-07')) return schema
  const { $schema: _ignored, ...rest } = schema
  return rest
}

/** `schemaBroken`: the tool's own schema does not compile, which is the tool's fault, not the caller's. */
export type ValidationResult = { valid: true } | { valid: false, message: string, paths: string[], schemaBroken: boolean }

function compile (schema: JsonSchema, trusted: boolean, mode: Mode = 'first'): ValidateFunction | Error {
  const cacheKey = `${trusted}:${mode}`
  let cache = compiled.get(cacheKey)
  if (cache === undefined) {
    cache = new WeakMap()
    compiled.set(cacheKey, cache)
  }
  let validator = cache.get(schema)
  if (validator === undefined) {
    try {
      validator = ajvFor(schema, trusted, mode).compile(withKnownDialect(schema))
    } catch (err) {
      validator = new Error(`the tool's parameter schema is invalid: ${(err as Error).message}`)
    }
    cache.set(schema, validator)
  }
  return validator
}

// Collecting every failure walks the whole value and makes an error object per failing member: for
// a 500 000-element array, seconds and hundreds of MB. Past this many values in the arguments, the
// message names the first failure only.
const REPORT_NODE_LIMIT = 10_000

/** Whether `value` holds at most `limit` values (itself, members, members' members), counted without recursion. */
function isSmall (value: unknown, limit: number): boolean {
  const pending: unknown[] = [value]
  let count = 0
  while (pending.length > 0) {
    const next = pending.pop()
    if (++count > limit) return false
    if (Array.isArray(next)) {
      if (count + next.length > limit) return false
      for (const member of next) pending.push(member)
    } else if (typeof next === 'object' && next !== null) {
      for (const member of Object.values(next)) pending.push(member)
    }
  }
  return true
}

// A message names the first failures and counts the rest: with allErrors, one failing item per
// element of a large array would otherwise echo the whole body back, many times over.
const MAX_REPORTED_FAILURES = 10
const MAX_FAILURE_CHARS = 200
const MAX_LISTED_VALUES = 10

function allowedValues (values: unknown[]): string {
  const listed = values.slice(0, MAX_LISTED_VALUES).map((v) => JSON.stringify(v)).join(', ')
  return values.length > MAX_LISTED_VALUES ? `${listed}, … ${values.length} in all` : listed
}

function describe (error: ErrorObject): { path: string, text: string } {
  const base = error.instancePath === '' ? '' : error.instancePath
  if (error.keyword === 'required') {
    const path = `${base}/${String(error.params.missingProperty)}`
    return { path, text: `${path}: is required` }
  }
  if (error.keyword === 'additionalProperties') {
    const path = `${base}/${String(error.params.additionalProperty)}`
    return { path, text: `${path}: is not an allowed property` }
  }
  const path = base === '' ? '/' : base
  const allowed = error.keyword === 'enum' ? ` (${allowedValues(error.params.allowedValues as unknown[])})` : ''
  return { path, text: `${path}: ${error.message ?? 'is invalid'}${allowed}` }
}

/** Whether `args` validate, without building a message (false too when the schema does not compile). */
export function argumentsValid (args: unknown, schema: JsonSchema, trusted = true): boolean {
  const validator = compile(schema, trusted)
  return !(validator instanceof Error) && validator(args)
}

/**
 * Validates `args`; when invalid, the message names each failing path (JSON Pointer form), up to
 * MAX_REPORTED_FAILURES of them, each cut to MAX_FAILURE_CHARS, and counts the others.
 */
export function validateArguments (args: unknown, schema: JsonSchema, trusted = true): ValidationResult {
  const validator = compile(schema, trusted)
  if (validator instanceof Error) return { valid: false, message: clipText(validator.message), paths: [], schemaBroken: true }
  if (validator(args)) return { valid: true }
  let errors = validator.errors ?? []
  const partial = trusted && !isSmall(args, REPORT_NODE_LIMIT)
  if (trusted && !partial) {
    const reporter = compile(schema, trusted, 'report')
    if (!(reporter instanceof Error) && !reporter(args)) errors = reporter.errors ?? errors
  }
  const seen = new Set<string>()
  const parts: Array<{ path: string, text: string }> = []
  let more = 0
  for (const error of errors) {
    const part = describe(error)
    if (seen.has(part.text)) continue
    seen.add(part.text)
    if (parts.length < MAX_REPORTED_FAILURES) parts.push({ path: clipText(part.path, MAX_FAILURE_CHARS), text: clipText(part.text, MAX_FAILURE_CHARS) })
    else more++
  }
  const rest = more > 0 ? `; and ${more} more failures` : partial ? ` (the first failure found; the arguments hold more than ${REPORT_NODE_LIMIT} values, so they were not all checked)` : ''
  return {
    valid: false,
    message: `invalid arguments: ${parts.map((p) => p.text).join('; ')}${rest}`,
    paths: [...new Set(parts.map((p) => p.path))],
    schemaBroken: false
  }
}
