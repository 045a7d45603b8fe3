// The `registry` that tool modules import. A tool module calls `registry.register(...)` at its top
// level; discovery imports it inside `withRegistrationTarget(target, ...)`, so the call lands in the
// registry of the app being built. AsyncLocalStorage carries the target into the module's
// evaluation, which lets several apps (tests, one per case) discover into their own registries.
import { AsyncLocalStorage } from 'node:async_hooks'
import { ToolRegistry } from './registry.ts'
import type { RegisterOptions, ToolEntry } from './types.ts'

interface Target { registry: ToolRegistry, onRegister?: (entry: ToolEntry) => void }
const target = new AsyncLocalStorage<Target>()

/** The process-wide registry used when no discovery scope is active (a tool module imported by hand). */
export const defaultRegistry = new ToolRegistry()

/**
 * Runs `fn` (an import) so that tool modules evaluated during it register into `registry`;
 * `onRegister` hears of each registration (discovery uses it to undo a module that fails halfway).
 */
export function withRegistrationTarget<T> (registry: ToolRegistry, fn: () => T, onRegister?: (entry: ToolEntry) => void): T {
  return target.run({ registry, onRegister }, fn)
}

/** What tool modules see: only registration, forwarded to the registry being built. */
export const registry = {
  register (options: RegisterOptions): ToolEntry {
    const scope = target.getStore()
    const entry = (scope?.registry ?? defaultRegistry).register(options)
    scope?.onRegister?.(entry)
    return entry
  }
}
