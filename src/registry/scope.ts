// The `registry` that tool modules import. A tool module calls `registry.register(...)` at its top
// level; discovery imports it inside `withRegistrationTarget(target, ...)`, so the call lands in the
// registry of the app being built. AsyncLocalStorage carries the target into the module's
// evaluation, which lets several apps (tests, one per case) discover into their own registries.
import { AsyncLocalStorage } from 'node:async_hooks'
import { ToolRegistry } from './registry.ts'
import type { RegisterOptions, ToolEntry } from './types.ts'

const target = new AsyncLocalStorage<ToolRegistry>()

/** The process-wide registry used when no discovery scope is active (a tool module imported by hand). */
export const defaultRegistry = new ToolRegistry()

/** Runs `fn` (an import) so that tool modules evaluated during it register into `registry`. */
export function withRegistrationTarget<T> (registry: ToolRegistry, fn: () => T): T {
  return target.run(registry, fn)
}

/** What tool modules see: only registration, forwarded to the registry being built. */
export const registry = {
  register (options: RegisterOptions): ToolEntry {
    return (target.getStore() ?? defaultRegistry).register(options)
  }
}
