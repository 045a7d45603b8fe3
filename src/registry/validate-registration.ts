// Checks a registration before it reaches the registry, so a broken tool fails loudly at start-up
// with a message naming the field, instead of confusing a model or an HTTP client later.
import { InvalidToolError } from '../shared/errors.ts'
import type { RegisterOptions } from './types.ts'
import { annotationProblems } from './annotations.ts'
import { isRecord } from '../shared/objects.ts'

/** The OpenAI and Anthropic rule for function names. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/

export function validateRegistration (options: RegisterOptions): void {
  const problems: string[] = []
  const label = typeof options?.name === 'string' ? `tool "${options.name}"` : 'tool'
  if (!isRecord(options)) throw new InvalidToolError('registration options must be an object')

  if (typeof options.name !== 'string' || !TOOL_NAME_PATTERN.test(options.name)) {
    problems.push(`name ${JSON.stringify(options.name)} must match ${TOOL_NAME_PATTERN.source} (letters, digits, _ and -, 1 to 64 characters)`)
  }
  if (typeof options.toolset !== 'string' || options.toolset.trim() === '') {
    problems.push('toolset must be a non-empty string')
  }
  if (typeof options.handler !== 'function') problems.push('handler must be a function')
  if (!isRecord(options.schema)) {
    problems.push('schema must be an object { description, parameters }')
  } else if (!isRecord(options.schema.parameters)) {
    problems.push('schema.parameters must be a JSON Schema object')
  } else if (options.schema.parameters.type !== 'object') {
    problems.push(`schema.parameters.type must be "object" (got ${JSON.stringify(options.schema.parameters.type)})`)
  }
  if (options.checkFn !== undefined && typeof options.checkFn !== 'function') problems.push('checkFn must be a function')
  if (options.dynamicSchemaOverrides !== undefined && typeof options.dynamicSchemaOverrides !== 'function') {
    problems.push('dynamicSchemaOverrides must be a function')
  }
  if (options.prepare !== undefined && typeof options.prepare !== 'function') problems.push('prepare must be a function')
  if (options.dispose !== undefined && typeof options.dispose !== 'function') problems.push('dispose must be a function')
  if (options.requiresEnv !== undefined &&
    (!Array.isArray(options.requiresEnv) || !options.requiresEnv.every((v) => typeof v === 'string'))) {
    problems.push('requiresEnv must be an array of strings')
  }
  const size = options.maxResultSizeChars
  if (size !== undefined && !(typeof size === 'number' && size >= 0 && (Number.isInteger(size) || size === Infinity))) {
    problems.push('maxResultSizeChars must be a whole number ≥ 0 or Infinity')
  }
  const timeout = options.timeoutMs
  if (timeout !== undefined && !(typeof timeout === 'number' && Number.isInteger(timeout) && timeout > 0)) {
    problems.push('timeoutMs must be a whole number of milliseconds > 0')
  }
  problems.push(...annotationProblems(options.annotations))
  if (problems.length > 0) throw new InvalidToolError(`cannot register ${label}: ${problems.join('; ')}`)
}
