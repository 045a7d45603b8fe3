// Discovery again, for a configuration reload: the tool folders are scanned anew, and the registry
// is brought to what a fresh start would serve in one change (one generation): modules new since
// the last pass are imported, modules whose file changed are imported again (a new instance under
// a new URL, see ./import-module.ts), modules gone (deleted, no longer registering at their top
// level, their folder no longer configured) lose their tools; unchanged modules are left alone, so
// a reload that changes nothing changes nothing. A module that now fails to parse or import keeps
// its running version, and the log says why: a half-saved file does not take a tool away.
import { resolve } from 'node:path'
import { messageOf } from '../shared/objects.ts'
import { ToolRegistry } from '../registry/registry.ts'
import type { RegisterOptions, ToolEntry } from '../registry/types.ts'
import { analyse, candidateFiles, type DiscoveryLogger } from './discover.ts'
import { loadedModules, reimportToolModule, setLoadedModules, versionOf, type LoadedModule } from './import-module.ts'
import { installRegistrySpecifier } from './registry-specifier.ts'
import type { ModuleVerdict } from './analyse-modules.ts'

export interface RediscoverOptions {
  dirs: readonly string[]
  registry: ToolRegistry
  logger: DiscoveryLogger
  cacheDir?: string
}

export interface ToolChanges {
  added: string[]
  removed: string[]
  updated: string[]
  /** Module files that could not be loaded anew, with the reason (a running version is kept). */
  failed: Array<{ file: string, error: string }>
  /** Entries no longer served (removed or replaced): to release once their calls have ended. */
  retired: ToolEntry[]
}

/** Gathers a re-imported module's registrations as they were made, to replay them into the served registry. */
class StagingRegistry extends ToolRegistry {
  readonly registrations: RegisterOptions[] = []

  override register (options: RegisterOptions): ToolEntry {
    const entry = super.register(options)
    this.registrations.push(options)
    return entry
  }
}

function verdictError (verdict: ModuleVerdict): string {
  return 'readError' in verdict ? verdict.readError : verdict.parseErrors.join('; ')
}

/** Scans the folders again and applies the difference to `registry`; see the file comment. */
export async function rediscoverTools (options: RediscoverOptions): Promise<ToolChanges> {
  installRegistrySpecifier()
  const { registry, logger } = options
  const dirs = options.dirs.map((dir) => resolve(dir))
  const previous = loadedModules(registry)
  const next = new Map<string, LoadedModule>()
  const staging = new StagingRegistry()
  const changes: ToolChanges = { added: [], removed: [], updated: [], failed: [], retired: [] }
  const keep = (file: string, error: string): void => {
    const running = previous.get(file)
    changes.failed.push({ file, error })
    logger.error({ file, err: error, kept: running !== undefined }, running === undefined
      ? 'tool reload: module cannot be loaded, skipped'
      : 'tool reload: module cannot be loaded, its running version is kept')
    if (running !== undefined) next.set(file, running)
  }
  for (const verdict of await analyse(await candidateFiles(dirs, logger), logger, options.cacheDir)) {
    const { file } = verdict
    const error = verdictError(verdict)
    if (error !== '') {
      keep(file, error)
      continue
    }
    if ('registers' in verdict && !verdict.registers) continue
    const running = previous.get(file)
    const outcome = await reimportIfChanged(file, running, registry, staging, logger)
    if (outcome === 'unchanged') next.set(file, running!)
    else if (!outcome.ok) keep(file, messageOf(outcome.error))
    else next.set(file, { tools: outcome.tools, version: outcome.version })
  }
  apply(registry, previous, next, staging.registrations, changes, logger)
  setLoadedModules(registry, next)
  return changes
}

async function reimportIfChanged (file: string, running: LoadedModule | undefined, owner: ToolRegistry, staging: ToolRegistry, logger: DiscoveryLogger) {
  if (running?.version !== undefined && running.version === await versionOf(file)) return 'unchanged' as const
  return await reimportToolModule(file, owner, staging, (err) => {
    logger.error({ err, file }, 'tool reload: registration after the module finished loading, refused')
  })
}

/** One registry change: the tools of modules gone or replaced out, the new registrations in. */
function apply (registry: ToolRegistry, previous: ReadonlyMap<string, LoadedModule>, next: ReadonlyMap<string, LoadedModule>,
  registrations: readonly RegisterOptions[], changes: ToolChanges, logger: DiscoveryLogger): void {
  const incoming = new Set(registrations.map((options) => options.name))
  const outgoing = new Set<string>()
  for (const [file, loaded] of previous) {
    if (next.get(file) !== loaded) for (const name of loaded.tools) outgoing.add(name)
  }
  const snapshot = registry.snapshot()
  registry.update((batch) => {
    for (const name of outgoing) {
      const entry = snapshot.tools.get(name)
      // A plugin may have replaced a built-in tool since: the reload never removes someone else's.
      if (incoming.has(name) || entry?.origin.kind !== 'builtin') continue
      batch.deregister(name)
      changes.removed.push(name)
      changes.retired.push(entry)
    }
    for (const options of registrations) {
      const existing = snapshot.tools.get(options.name)
      try {
        batch.register(options)
      } catch (err) {
        logger.error({ tool: options.name, err: messageOf(err) }, 'tool reload: tool not registered')
        continue
      }
      if (existing === undefined) {
        changes.added.push(options.name)
        continue
      }
      // A new module taking a name an unchanged one serves: as at start, the last one serves it.
      if (!outgoing.has(options.name)) logger.warn({ tool: options.name }, 'tool reload: tool registered again by another module, the last one serves it')
      changes.updated.push(options.name)
      changes.retired.push(existing)
    }
  })
}
