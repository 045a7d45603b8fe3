// Cached definitions are shared by every request: frozen deep, so no caller can corrupt them.

export function deepFreeze<T> (value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}
