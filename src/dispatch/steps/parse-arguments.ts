// Accepts the arguments as an object or as the JSON string a model emits; anything else is invalid.
// A `__proto__` key, or a `constructor` holding a `prototype`, is refused at every way in (a JSON
// string inside a body, a --stdio message, a plugin's call): such a key reaches a handler as an own
// key whose meaning depends on how the handler copies objects, so the call is refused, naming it.
import secureJson from 'secure-json-parse'
import { failed } from '../call/outcome.ts'
import type { Step } from '../call/pipeline.ts'
import { FORBIDDEN_JSON_KEYS as FORBIDDEN_KEYS, isRecord } from '../../shared/objects.ts'

function describeType (value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return `a ${typeof value}`
}

const FORBIDDEN_MESSAGE = 'invalid arguments: a "__proto__" or "constructor.prototype" key is not accepted (it could change how the tool reads its arguments)'

function hasForbiddenKey (value: object): boolean {
  try {
    secureJson.scan(value, FORBIDDEN_KEYS)
    return false
  } catch {
    return true
  }
}

export function parseArguments (raw: unknown): { args: Record<string, unknown> } | { error: string } {
  // Models often send nothing at all for a tool without parameters.
  if (raw === undefined || raw === null || raw === '') return { args: {} }
  let value = raw
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw)
    } catch (err) {
      return { error: `invalid arguments: not valid JSON (${(err as Error).message})` }
    }
    if (value === null) return { args: {} }
  }
  if (!isRecord(value)) return { error: `invalid arguments: expected a JSON object, got ${describeType(value)}` }
  if (hasForbiddenKey(value)) return { error: FORBIDDEN_MESSAGE }
  return { args: value }
}

export const parseStep: Step = async function parse (call, next) {
  const parsed = parseArguments(call.request.args)
  if ('error' in parsed) return failed('invalid', parsed.error)
  call.args = parsed.args
  return await next(call)
}
