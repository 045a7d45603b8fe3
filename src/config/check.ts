// Fills the defaults of the merged configuration and lists every bad value, one line per field,
// with the Ajv that Fastify loads anyway: TypeBox's own value checker would add some 300 modules to
// every start. The lines keep TypeBox's wording ("must have required properties a, b", "must not
// have fewer than …"), and never echo an object, which may hold secrets beside the bad value.
import { Ajv, type ErrorObject } from 'ajv'
import { focusMcpServerErrors } from './mcp-server-errors.ts'
import { ConfigSchema } from './schema.ts'

// Every error, not the first: start-up must report all bad values at once. The schema is this
// code's own, checked against the JSON Schema meta-schema by the tests: compiling the meta-schema
// too at every start cost a third of the compilation.
export const CONFIG_AJV_OPTIONS = { allErrors: true, useDefaults: true, coerceTypes: false, removeAdditional: false, validateSchema: false } as const

let validate: ReturnType<Ajv['compile']> | undefined

/** Fills defaults into `value` in place (nested objects too) and answers the errors, none when valid. */
export function fillAndCheck (value: unknown): ErrorObject[] {
  validate ??= new Ajv(CONFIG_AJV_OPTIONS).compile(ConfigSchema)
  return validate(value) ? [] : validate.errors ?? []
}

function pointerToField (pointer: string): string {
  return pointerTokens(pointer).join('.')
}

function pointerTokens (pointer: string): string[] {
  return pointer.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
}

function valueAt (value: unknown, pointer: string): unknown {
  let at = value
  for (const token of pointerTokens(pointer)) at = (at as Record<string, unknown> | undefined)?.[token]
  return at
}

const KEY_DIGEST = /^\/auth\/keys\/(\d+)\/sha256$/

/** A bad digest is often the key itself, pasted in its place: name the key, never echo the value. */
function keyDigestProblem (value: unknown, pointer: string): string | undefined {
  const match = KEY_DIGEST.exec(pointer)
  if (match === null) return undefined
  const name = (value as { auth?: { keys?: Array<{ name?: unknown }> } }).auth?.keys?.[Number(match[1])]?.name
  const label = typeof name === 'string' ? ` (key ${JSON.stringify(name)})` : ''
  return `auth.keys.${match[1]}.sha256${label}: must be 64 hexadecimal characters (the SHA-256 digest of the key, not the key); the value is not shown`
}

/** Where an error was found: the value, and the schema (each branch of a union is its own). */
const at = (e: ErrorObject): string => `${e.instancePath} ${e.schemaPath}`

/** Ajv reports one missing or unknown property per error: one line per object and schema names them all. */
function namesByObject (errors: ErrorObject[], keyword: string, param: string): Map<string, string[]> {
  const names = new Map<string, string[]>()
  for (const e of errors) {
    if (e.keyword !== keyword) continue
    const list = names.get(at(e)) ?? []
    list.push(String(e.params[param]))
    names.set(at(e), list)
  }
  return names
}

function messageOf (e: ErrorObject, value: unknown, names: { missing: Map<string, string[]>, unknown: Map<string, string[]> }): string {
  if (e.keyword === 'additionalProperties' && e.instancePath === '/mcpServers') {
    return `invalid server name(s) ${names.unknown.get(at(e))!.map((name) => JSON.stringify(name)).join(', ')}: letters, digits, _ - . and / only, at most 64`
  }
  if (e.keyword === 'additionalProperties') return `unknown field(s) ${names.unknown.get(at(e))!.join(', ')}`
  if (e.keyword === 'anyOf') {
    return e.instancePath.startsWith('/mcpServers/')
      ? 'must be either a stdio server { command, args, env, cwd } or an HTTP server { url, headers }'
      : 'must be one of the allowed shapes'
  }
  let message = e.keyword === 'required'
    ? `must have required properties ${names.missing.get(at(e))!.join(', ')}`
    : (e.message ?? 'is not valid').replace('must NOT', 'must not')
  if (Array.isArray(e.params.allowedValues)) message += ` (${(e.params.allowedValues as unknown[]).join(', ')})`
  const got = valueAt(value, e.instancePath)
  // A whole object or list is not echoed: it may hold secrets (headers, keys) beside the bad value.
  if (e.instancePath !== '' && (typeof got !== 'object' || got === null)) message += `, got ${JSON.stringify(got)}`
  return message
}

/** One line per problem: the field, where its value came from (`envSources`: field → variable), what was expected. */
export function describeErrors (errors: ErrorObject[], value: unknown, envSources: Map<string, string>): string[] {
  const focused = focusMcpServerErrors(errors, value)
  const names = { missing: namesByObject(focused, 'required', 'missingProperty'), unknown: namesByObject(focused, 'additionalProperties', 'additionalProperty') }
  const lines: string[] = []
  for (const e of focused) {
    const digest = keyDigestProblem(value, e.instancePath)
    if (digest !== undefined) {
      lines.push(digest)
      continue
    }
    let field = pointerToField(e.instancePath) || '(top level)'
    const source = envSources.get(pointerToField(e.instancePath))
    if (source !== undefined) field += ` (from ${source})`
    lines.push(`${field}: ${messageOf(e, value, names)}`)
  }
  return [...new Set(lines)]
}
