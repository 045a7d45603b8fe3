// Accepts the arguments as an object or as the JSON string a model emits; anything else is invalid.
import { failed } from '../outcome.ts'
import type { Step } from '../pipeline.ts'
import { isRecord } from '../../objects.ts'

function describeType (value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return `a ${typeof value}`
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
  return { args: value }
}

export const parseStep: Step = async function parse (call, next) {
  const parsed = parseArguments(call.request.args)
  if ('error' in parsed) return failed('invalid', parsed.error)
  call.args = parsed.args
  return await next(call)
}
