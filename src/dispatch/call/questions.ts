// The questions a tool asks its caller (ctx.ask): checked for shape before they leave the call, and
// described in one line for an error or a log, so that a caller that cannot answer learns what it
// was asked.
import type { InputRequest, InputRequestMethod, InputRequests } from '../../registry/types.ts'
import { clipText } from '../../shared/clip-text.ts'

const METHODS: ReadonlySet<string> = new Set<InputRequestMethod>(['elicitation/create', 'sampling/createMessage', 'roots/list'])

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Throws a TypeError naming the first entry that is no question a caller could answer (a bug of the tool). */
export function checkQuestions (requests: unknown): asserts requests is InputRequests {
  if (!isObject(requests) || Object.keys(requests).length === 0) {
    throw new TypeError('ctx.ask takes a map of at least one question, keyed by the tool\'s own names: { key: { method, params } }')
  }
  for (const [key, entry] of Object.entries(requests)) {
    if (!isObject(entry) || typeof entry.method !== 'string' || !METHODS.has(entry.method)) {
      throw new TypeError(`ctx.ask: question "${key}" must be { method: ${[...METHODS].join(' | ')}, params }`)
    }
    if (entry.params !== undefined && !isObject(entry.params)) throw new TypeError(`ctx.ask: the params of question "${key}" must be an object`)
  }
}

/** One question in a few words: its kind and what it says (an elicitation's message, a sampling's first text). */
function describeOne (key: string, request: InputRequest): string {
  const params = request.params ?? {}
  if (request.method === 'elicitation/create') {
    const message = typeof params.message === 'string' ? params.message : ''
    const kind = params.mode === 'url' ? 'a URL for the user to open' : 'a form for the user'
    return `${key}: ${kind}${message === '' ? '' : ` ("${message}")`}`
  }
  if (request.method === 'sampling/createMessage') return `${key}: a completion from the caller's model`
  return `${key}: the caller's roots`
}

/** "elicitation/create for the user ("Deploy to prod?"), ..." in one capped line. */
export function describeQuestions (requests: InputRequests): string {
  return clipText(Object.entries(requests).map(([key, request]) => describeOne(key, request)).join('; '), 500)
}

/** The capability a caller must have declared to answer `request` (MCP's client capability names). */
export function capabilityOf (request: InputRequest): 'elicitation' | 'sampling' | 'roots' {
  if (request.method === 'elicitation/create') return 'elicitation'
  if (request.method === 'sampling/createMessage') return 'sampling'
  return 'roots'
}
