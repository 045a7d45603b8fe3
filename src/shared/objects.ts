// Small readers of untrusted values, shared by every module that checks input it did not make
// (configs, tool registrations, arguments, MCP schemas and results, thrown values).

/** secure-json-parse options refusing `__proto__` and `constructor.prototype` keys: one rule for bodies, arguments and nested JSON. */
export const FORBIDDEN_JSON_KEYS = { protoAction: 'error', constructorAction: 'error' } as const

/** A non-null object that is not an array: what JSON calls an object. */
export function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The message of a thrown value (never its stack, which would leak paths), or a description of it. */
export function messageOf (thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message || thrown.name
  return String(thrown)
}

/** JSON with object keys sorted at every level: two values equal as data give the same text, whatever their key order. */
export function sortedJson (value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => isRecord(inner)
    ? Object.fromEntries(Object.keys(inner).sort().map((key) => [key, inner[key]]))
    : inner)
}
