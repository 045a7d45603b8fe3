// The `registry` that tool modules import. A tool module calls `registry.register(...)` at its top
// level; discovery imports it inside `withRegistrationTarget(target, ...)`, so the call lands in the
// registry of the app being built. AsyncLocalStorage carries the target into the module's
// evaluation (top-level awaits included), which lets several apps discover into their own registries.
//
// A registration with no open scope is an error, not a warning. It would reach no registry the
// gateway serves, so a warning could only explain afterwards why a tool is missing; thrown at the
// call, the failure stays with the module that made it (discovery skips and logs it by name, a
// hand import fails). Nothing legitimate registers here without discovery: tests and scripts
// register on a ToolRegistry they hold (`new ToolRegistry()`, `app.gateway.registry`), and code
// that loads a tool module itself wraps the import in withRegistrationTarget. A late registration
// (a timer, a promise the module did not await) is refused too, and also reported to the scope,
// because a throw in such a callback reaches only the process's uncaught-error handler.
import { AsyncLocalStorage } from 'node:async_hooks'
import { fileURLToPath } from 'node:url'
import { InvalidToolError } from '../errors.ts'
import type { ToolRegistry } from './registry.ts'
import type { RegisterOptions, ToolEntry } from './types.ts'

/** The stable name outside tool modules import the registry by; discovery resolves it to this process's copy. */
export const REGISTRY_SPECIFIER = 'tool-gateway/registry'

export interface ScopeOptions {
  /** The module being loaded, named in errors. */
  module?: string
  /** Hears of each registration (discovery uses it to undo a module that fails halfway). */
  onRegister?: (entry: ToolEntry) => void
  /** Hears of a registration refused because it came after the load finished. */
  onLate?: (error: Error) => void
}

interface Scope extends ScopeOptions {
  registry: ToolRegistry
  open: boolean
}

const target = new AsyncLocalStorage<Scope>()

// Every copy of this module (loaded under another URL: a query, another checkout, src/ beside
// dist/) has its own AsyncLocalStorage and so never sees discovery's scope. The first copy leaves
// its URL here, process-wide, so that a later one can say that it is a copy.
const HOME = Symbol.for('tool-gateway.registry-scope')
const shared = globalThis as unknown as Record<symbol, string | undefined>
shared[HOME] ??= import.meta.url

/**
 * Runs `load` (an import) so that tool modules evaluated during it register into `registry`. The
 * scope closes when `load` settles: a registration after that is refused.
 */
export async function withRegistrationTarget<T> (registry: ToolRegistry, load: () => Promise<T>, options: ScopeOptions = {}): Promise<T> {
  const scope: Scope = { ...options, registry, open: true }
  try {
    return await target.run(scope, load)
  } finally {
    scope.open = false
  }
}

/** What tool modules see: only registration, forwarded to the registry being built. */
export const registry = {
  register (options: RegisterOptions): ToolEntry {
    const scope = target.getStore()
    if (scope === undefined || !scope.open) {
      const error = new InvalidToolError(refusal(options, scope))
      scope?.onLate?.(error)
      throw error
    }
    const entry = scope.registry.register(options)
    scope.onRegister?.(entry)
    return entry
  }
}

function refusal (options: RegisterOptions, scope: Scope | undefined): string {
  const call = `registry.register() of tool ${JSON.stringify(String((options as { name?: unknown } | undefined)?.name))}`
  if (scope !== undefined) {
    return `${call} in ${scope.module ?? callerFile()} ran after that module finished loading (in a timer or a promise ` +
      'it did not await), so it is refused: register at the top level, awaiting first what the registration needs'
  }
  if (shared[HOME] !== import.meta.url) {
    return `${call} in ${callerFile()} went to a second copy of the registry module (${import.meta.url}), not the ` +
      `one the gateway serves (${shared[HOME]}): import the registry as '${REGISTRY_SPECIFIER}' (or by one relative path)`
  }
  return `${call} in ${callerFile()} ran outside tool discovery, so no registry the gateway serves would get it: let ` +
    'discovery load the module (TOOLS_DIR, EXTRA_TOOLS_DIRS), or import it inside withRegistrationTarget() of src/registry/scope.ts'
}

/** The file of the code that called register, read from the stack: a best effort, for messages only. */
function callerFile (): string {
  const holder: { stack?: string } = {}
  Error.captureStackTrace(holder, registry.register)
  const frame = (holder.stack ?? '').split('\n')[1]?.trim() ?? ''
  const location = (frame.endsWith(')') ? frame.slice(frame.lastIndexOf('(') + 1, -1) : frame.replace(/^at (async )?/, ''))
    .replace(/:\d+:\d+$/, '')
  if (location.startsWith('file:')) {
    const url = new URL(location)
    url.search = ''
    return fileURLToPath(url)
  }
  return location.startsWith('/') || /^[A-Za-z]:\\/.test(location) ? location : 'a module the stack does not name'
}
