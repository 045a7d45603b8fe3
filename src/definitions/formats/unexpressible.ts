// Shared by the schema rewrites (strict, Gemini): how a rewrite refuses a schema it cannot express
// faithfully, and small readers of JSON Schema nodes. A refusal names the place (a JSON pointer into
// the parameters) and the reason, so /tools can tell an operator exactly why a tool is left out.
import { isRecord } from '../../shared/objects.ts'

/** Thrown by a rewrite: this schema has no faithful form in the target dialect. */
export class SchemaNotExpressible extends Error {
  constructor (path: string, reason: string) {
    super(`${reason} at ${path === '' ? 'the root' : path}`)
  }
}

/** The outcome of a rewrite: the new schema, or why there is none. */
export type Rewrite<T> = { ok: true, value: T } | { ok: false, reason: string }

export function attempt<T> (rewrite: () => T): Rewrite<T> {
  try {
    return { ok: true, value: rewrite() }
  } catch (err) {
    if (err instanceof SchemaNotExpressible) return { ok: false, reason: err.message }
    throw err
  }
}

/** The pointer of a child: `/properties/a~1b` for a key `a/b`. */
export function childPath (path: string, ...tokens: Array<string | number>): string {
  return path + tokens.map((token) => '/' + String(token).replaceAll('~', '~0').replaceAll('/', '~1')).join('')
}

/** An own property, so keys such as `__proto__` in an untrusted schema never reach the prototype. */
export function own (node: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(node, key) ? node[key] : undefined
}

/** The declared type names of a node, [] when it declares none. */
export function typeNames (node: Record<string, unknown>): string[] {
  const type = own(node, 'type')
  if (typeof type === 'string') return [type]
  return Array.isArray(type) ? type.filter((name): name is string => typeof name === 'string') : []
}

/** Whether a node already lets null through (a null type, a null in its enum, a null branch). */
export function allowsNull (node: unknown): boolean {
  if (!isRecord(node)) return node === true
  if (typeNames(node).includes('null')) return true
  const values = own(node, 'enum')
  if (Array.isArray(values) && values.includes(null)) return true
  if (Object.hasOwn(node, 'const') && node.const === null) return true
  const branches = own(node, 'anyOf') ?? own(node, 'oneOf')
  return Array.isArray(branches) && branches.some((branch) => allowsNull(branch))
}

/** The target of a local `$ref` (`#/$defs/x`, `#/definitions/x`), or undefined. */
export function localTarget (ref: string, root: Record<string, unknown>): unknown {
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref)
  if (match === null) return undefined
  const defs = own(root, match[1])
  return isRecord(defs) ? own(defs, match[2].replaceAll('~1', '/').replaceAll('~0', '~')) : undefined
}
