// Imports one tool module into one registry inside a registration scope, and says which tools it
// registered. A module that throws halfway is undone whole: a half-loaded module could serve tools
// whose set-up never finished. A configuration reload imports a changed module again as a new
// instance (a new URL), and remembers which version of each file a registry serves.
import { stat } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import type { ToolRegistry } from '../registry/registry.ts'
import { withRegistrationTarget } from '../registry/scope.ts'

export type ImportOutcome =
  | { ok: true, tools: readonly string[] }
  | { ok: false, error: unknown, rolledBack: string[] }

/** What a registry serves of one module file: the tools it registered, from which version of the file. */
export interface LoadedModule {
  readonly tools: readonly string[]
  /** The file's identity when it was imported (see versionOf); undefined when it could not be read. */
  readonly version: string | undefined
}

interface RegistryState {
  id: number
  loaded: Map<string, LoadedModule>
  /** Imports of new versions so far: each takes a fresh URL. */
  reimports: number
}

// ES modules are cached by URL: a second app importing the same file would not re-run its
// registrations. A per-registry query string gives each registry its own module instance. What a
// module registered is kept per registry, because importing it again into the same registry is a
// cache hit that registers nothing although its tools are there.
const registryStates = new WeakMap<ToolRegistry, RegistryState>()
let nextRegistryId = 1

// A module Node loads as CommonJS (no import syntax where nothing says "type": "module") is cached
// by file name, query or not: without leaving that cache, the second registry would get nothing.
const requireCache = createRequire(import.meta.url).cache

function stateOf (registry: ToolRegistry): RegistryState {
  let state = registryStates.get(registry)
  if (state === undefined) {
    state = { id: nextRegistryId++, loaded: new Map(), reimports: 0 }
    registryStates.set(registry, state)
  }
  return state
}

/**
 * The identity of a file's current content: inode, size and modification time. An editor that
 * saves by rename gives a new inode, an in-place write a new mtime. Taken before the import, so
 * an edit racing it makes the next reload import again rather than miss it.
 */
export async function versionOf (file: string): Promise<string | undefined> {
  try {
    const { ino, size, mtimeMs } = await stat(file)
    return `${ino}:${size}:${mtimeMs}`
  } catch {
    return undefined
  }
}

async function load (file: string, url: string, target: ToolRegistry, onLate: (error: Error) => void): Promise<ImportOutcome> {
  const added: string[] = []
  delete requireCache[file]
  try {
    await withRegistrationTarget(target, () => import(url), {
      module: file,
      onRegister: (entry) => added.push(entry.name),
      onLate
    })
  } catch (error) {
    for (const name of added) target.deregister(name)
    return { ok: false, error, rolledBack: added }
  }
  return { ok: true, tools: added }
}

/** Imports `file` for `registry` (once: a second call answers what the first registered); `onLate` hears of refused late registrations. */
export async function importToolModule (file: string, registry: ToolRegistry, onLate: (error: Error) => void): Promise<ImportOutcome> {
  const state = stateOf(registry)
  const known = state.loaded.get(file)
  if (known !== undefined) return { ok: true, tools: known.tools }
  const version = await versionOf(file)
  const outcome = await load(file, `${pathToFileURL(file).href}?registry=${state.id}`, registry, onLate)
  if (outcome.ok) state.loaded.set(file, { tools: outcome.tools, version })
  return outcome
}

/**
 * Imports the current version of `file`, a new module instance, on behalf of `owner` (the registry
 * that will serve it), with its registrations going to `target` (where a reload gathers them
 * before one change of `owner`). Records nothing: the reload does, once it has applied the change.
 * Every instance stays in Node's module cache for the life of the process.
 */
export async function reimportToolModule (file: string, owner: ToolRegistry, target: ToolRegistry, onLate: (error: Error) => void): Promise<ImportOutcome & { version: string | undefined }> {
  const state = stateOf(owner)
  const version = await versionOf(file)
  state.reimports++
  const outcome = await load(file, `${pathToFileURL(file).href}?registry=${state.id}&v=${state.reimports}`, target, onLate)
  return { ...outcome, version }
}

/** The module files `registry` serves tools of, and what each registered. */
export function loadedModules (registry: ToolRegistry): ReadonlyMap<string, LoadedModule> {
  return stateOf(registry).loaded
}

/** Records what `registry` serves after a reload: the modules it keeps, re-imported or new. */
export function setLoadedModules (registry: ToolRegistry, modules: ReadonlyMap<string, LoadedModule>): void {
  stateOf(registry).loaded = new Map(modules)
}
