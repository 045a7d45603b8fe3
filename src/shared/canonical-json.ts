// JSON with the keys of every object sorted (and undefined members left out, as JSON.stringify does):
// the same value always has the same text, so its digest binds the value, not the order a server or
// a client happened to write its keys in (pinned definitions, approved calls).
export function canonicalJson (value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>
    const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}
