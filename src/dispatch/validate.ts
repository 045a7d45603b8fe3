// Validates arguments against a tool's parameters with Ajv. Each schema object is compiled once and
// the compiled function cached beside it (a WeakMap, so a deregistered tool's validator goes too).
// Trusted schemas (built-in tools, plugins) report every failing path; untrusted MCP schemas are
// compiled without allErrors, as Ajv advises for schemas you do not control.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { JsonSchema } from '../registry/types.ts'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

function createAjv (allErrors: boolean): Ajv {
  // strict: false because real-world schemas carry keywords Ajv does not know (examples, x-*);
  // addUsedSchema: false so two tools whose schemas share an $id do not collide.
  const ajv = new Ajv({ allErrors, strict: false, addUsedSchema: false, validateFormats: true })
  addFormats(ajv)
  return ajv
}

const trustedAjv = createAjv(true)
const untrustedAjv = createAjv(false)
const compiled = new WeakMap<JsonSchema, ValidateFunction | Error>()

export type ValidationResult = { valid: true } | { valid: false, message: string, paths: string[] }

function compile (schema: JsonSchema, trusted: boolean): ValidateFunction | Error {
  let validator = compiled.get(schema)
  if (validator === undefined) {
    try {
      validator = (trusted ? trustedAjv : untrustedAjv).compile(schema)
    } catch (err) {
      validator = new Error(`the tool's parameter schema is invalid: ${(err as Error).message}`)
    }
    compiled.set(schema, validator)
  }
  return validator
}

/** Compiles ahead of the first call, so that cost stays out of the hot path. */
export function precompile (schema: JsonSchema, trusted = true): void {
  compile(schema, trusted)
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
  const allowed = error.keyword === 'enum' ? ` (${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')})` : ''
  return { path, text: `${path}: ${error.message ?? 'is invalid'}${allowed}` }
}

/** Validates `args`; when invalid, the message names every failing path (JSON Pointer form). */
export function validateArguments (args: unknown, schema: JsonSchema, trusted = true): ValidationResult {
  const validator = compile(schema, trusted)
  if (validator instanceof Error) return { valid: false, message: validator.message, paths: [] }
  if (validator(args)) return { valid: true }
  const seen = new Set<string>()
  const parts: Array<{ path: string, text: string }> = []
  for (const error of validator.errors ?? []) {
    const part = describe(error)
    if (seen.has(part.text)) continue
    seen.add(part.text)
    parts.push(part)
  }
  return {
    valid: false,
    message: `invalid arguments: ${parts.map((p) => p.text).join('; ')}`,
    paths: [...new Set(parts.map((p) => p.path))]
  }
}
