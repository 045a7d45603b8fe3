// The `registry` that tool modules import. A tool module calls `registry.register(...)` at its top
// level; discovery imports it inside `withRegistrationTarget(target, ...)`, so the call lands in the
// registry of the app being built. One module loads at a time, process-wide: the scope open while it
// loads (top-level awaits included) is a plain module-level variable, and two apps discovering at
// once queue their loads rather than mix them. No AsyncLocalStorage: nothing of discovery is left
// behind on the promises the gateway runs afterwards.
//
// A registration with no open scope is an error, not a warning. It would reach no registry the
// gateway serves, so a warning could only explain afterwards why a tool is missing; thrown at the
// call, the failure stays with the module that made it (discovery skips and logs it by name, a
// hand import fails). Nothing legitimate registers here without discovery: tests and scripts
// register on a ToolRegistry they hold (`new ToolRegistry()`, `app.gateway.registry`), and code
// that loads a tool module itself wraps the import in withRegistrationTarget. A late registration
// (a timer, a promise the module did not await) is refused too, and also reported to the scope of
// the module whose code made it (found by its file in the call's stack), because a throw in such a
// callback reaches only the process's uncaught-error handler.
//
// What a module-level scope cannot tell apart: a late callback of module A that fires while module
// B loads registers into B's registry as if B had made it (it names no module B does not load), as
// would any code running at that moment. Tool modules register at their top level; the test suite
// (test/discovery/node-loading.test.ts) keeps that the usual late cases are refused.
import { fileURLToPath } from 'node:url'
import { InvalidToolError } from '../shared/errors.ts'
import type { ToolRegistry } from './registry.ts'
import type { JsonSchema, RegisterOptions, ToolEntry } from './types.ts'
import { untyped } from './untyped.ts'

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

/** The scope of the module loading now. */
let current: Scope | undefined
/** Loads queue here, one at a time. */
let queue: Promise<unknown> = Promise.resolve()
/** Closed scopes by module file, so that a late registration is reported to its module's scope. */
const finished = new Map<string, Scope>()
/** Files remembered at most: a long-lived process that loads many modules keeps only the last. */
const FINISHED_KEPT = 1000

// Every copy of this module (loaded under another URL: a query, another checkout, src/ beside
// dist/) has its own scope variable and so never sees discovery's scope. The first copy leaves
// its URL here, process-wide, so that a later one can say that it is a copy.
const HOME = Symbol.for('tool-gateway.registry-scope')
const shared = globalThis as unknown as Record<symbol, string | undefined>
shared[HOME] ??= import.meta.url

/**
 * Runs `load` (an import) so that tool modules evaluated during it register into `registry`, once
 * the loads queued before it have finished. The scope closes when `load` settles: a registration
 * after that is refused. Not to be called from inside a load: it would wait for itself.
 */
export async function withRegistrationTarget<T> (registry: ToolRegistry, load: () => Promise<T>, options: ScopeOptions = {}): Promise<T> {
  const turn = queue.then(async () => {
    const scope: Scope = { ...options, registry, open: true }
    current = scope
    try {
      return await load()
    } finally {
      scope.open = false
      current = undefined
      remember(scope)
    }
  })
  queue = turn.catch(() => {})
  return await turn
}

function remember (scope: Scope): void {
  if (scope.module === undefined) return
  finished.delete(scope.module)
  finished.set(scope.module, scope)
  if (finished.size > FINISHED_KEPT) finished.delete(finished.keys().next().value as string)
}

/** What tool modules see: only registration, forwarded to the registry being built. */
export const registry = {
  /**
   * Registers a tool into the registry being built. The handler's arguments are typed from
   * `schema.parameters` (ArgumentsOf): write the schema inline (or `as const`), or build it with
   * TypeBox's `Type`; a schema typed as JsonSchema leaves them `Record<string, unknown>`.
   */
  register<const P extends object = JsonSchema> (options: RegisterOptions<P>): ToolEntry {
    const scope = current
    if (scope === undefined) {
      const closed = closedScopeOf(callerFiles())
      const error = new InvalidToolError(refusal(options, closed))
      closed?.onLate?.(error)
      throw error
    }
    const entry = scope.registry.register(untyped(options))
    scope.onRegister?.(entry)
    return entry
  }
}

function refusal (options: unknown, scope: Scope | undefined): string {
  const call = `registry.register() of tool ${JSON.stringify(String((options as { name?: unknown } | undefined)?.name))}`
  if (scope !== undefined) {
    return `${call} in ${scope.module ?? callerFiles()[0]} ran after that module finished loading (in a timer or a promise ` +
      'it did not await), so it is refused: register at the top level, awaiting first what the registration needs'
  }
  if (shared[HOME] !== import.meta.url) {
    return `${call} in ${callerFiles()[0]} went to a second copy of the registry module (${import.meta.url}), not the ` +
      `one the gateway serves (${shared[HOME]}): import the registry as '${REGISTRY_SPECIFIER}' (or by one relative path)`
  }
  return `${call} in ${callerFiles()[0]} ran outside tool discovery, so no registry the gateway serves would get it: let ` +
    'discovery load the module (TOOLS_DIR, EXTRA_TOOLS_DIRS), or import it inside withRegistrationTarget() of src/registry/scope.ts'
}

/** The scope of the first file in `files` that loaded as a tool module and has finished loading. */
function closedScopeOf (files: readonly string[]): Scope | undefined {
  for (const file of files) {
    const scope = finished.get(file)
    if (scope !== undefined) return scope
  }
  return undefined
}

/** The files of the code that called register, nearest first, read from the stack (for messages and late reports). */
function callerFiles (): string[] {
  const holder: { stack?: string } = {}
  Error.captureStackTrace(holder, registry.register)
  const files = (holder.stack ?? '').split('\n').slice(1).map((frame) => fileOf(frame.trim())).filter((file) => file !== undefined)
  return files.length > 0 ? files : ['a module the stack does not name']
}

function fileOf (frame: string): string | undefined {
  const location = (frame.endsWith(')') ? frame.slice(frame.lastIndexOf('(') + 1, -1) : frame.replace(/^at (async )?/, ''))
    .replace(/:\d+:\d+$/, '')
  if (location.startsWith('file:')) {
    const url = new URL(location)
    url.search = ''
    return fileURLToPath(url)
  }
  return location.startsWith('/') || /^[A-Za-z]:\\/.test(location) ? location : undefined
}
