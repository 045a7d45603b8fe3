// Imports one tool module into one registry inside a registration scope, and says which tools it
// registered. A module that throws halfway is undone whole: a half-loaded module could serve tools
// whose set-up never finished.
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import type { ToolRegistry } from '../registry/registry.ts'
import { withRegistrationTarget } from '../registry/scope.ts'

export type ImportOutcome =
  | { ok: true, tools: readonly string[] }
  | { ok: false, error: unknown, rolledBack: string[] }

// ES modules are cached by URL: a second app importing the same file would not re-run its
// registrations. A per-registry query string gives each registry its own module instance. What a
// module registered is kept per registry, because importing it again into the same registry is a
// cache hit that registers nothing although its tools are there.
const registryStates = new WeakMap<ToolRegistry, { id: number, loaded: Map<string, readonly string[]> }>()
let nextRegistryId = 1

// A module Node loads as CommonJS (no import syntax where nothing says "type": "module") is cached
// by file name, query or not: without leaving that cache, the second registry would get nothing.
const requireCache = createRequire(import.meta.url).cache

function stateOf (registry: ToolRegistry): { id: number, loaded: Map<string, readonly string[]> } {
  let state = registryStates.get(registry)
  if (state === undefined) {
    state = { id: nextRegistryId++, loaded: new Map() }
    registryStates.set(registry, state)
  }
  return state
}

/** Imports `file` for `registry` (once: a second call answers what the first registered); `onLate` hears of refused late registrations. */
export async function importToolModule (file: string, registry: ToolRegistry, onLate: (error: Error) => void): Promise<ImportOutcome> {
  const state = stateOf(registry)
  const known = state.loaded.get(file)
  if (known !== undefined) return { ok: true, tools: known }
  const added: string[] = []
  delete requireCache[file]
  try {
    await withRegistrationTarget(registry, () => import(`${pathToFileURL(file).href}?registry=${state.id}`), {
      module: file,
      onRegister: (entry) => added.push(entry.name),
      onLate
    })
  } catch (error) {
    for (const name of added) registry.deregister(name)
    return { ok: false, error, rolledBack: added }
  }
  state.loaded.set(file, added)
  return { ok: true, tools: added }
}
