// Fault-tolerant discovery of built-in tool modules: import every module under a folder that
// self-registers at its top level, into the registry of the app being built; a broken module is
// logged and skipped so the gateway still starts.
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Logger } from 'pino'
import type { ToolRegistry } from '../registry/registry.ts'
import { withRegistrationTarget } from '../registry/scope.ts'
import { listModuleFiles, registersAtTopLevel } from './find-tool-modules.ts'
import { messageOf } from '../objects.ts'

export interface DiscoveryReport {
  /** Modules imported (their top-level registrations ran). */
  imported: string[]
  /** Modules that failed to read, parse or import, with the reason. */
  skipped: Array<{ file: string, error: string }>
  /** Candidate files without a top-level `registry.register(...)`: helpers, never imported. */
  ignored: string[]
}

export interface DiscoverOptions {
  dir: string
  registry: ToolRegistry
  logger: Pick<Logger, 'error' | 'warn' | 'info' | 'debug'>
}

// ES modules are cached by URL: a second app importing the same file would not re-run its
// registrations. A per-registry query string gives each registry its own module instance.
const registryIds = new WeakMap<ToolRegistry, number>()
let nextRegistryId = 1

function idOf (registry: ToolRegistry): number {
  let id = registryIds.get(registry)
  if (id === undefined) {
    id = nextRegistryId++
    registryIds.set(registry, id)
  }
  return id
}

function isMissing (err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'ENOENT'
}

/**
 * Scans `dir` and imports, one after another in sorted order, the modules that register at top
 * level, so that their `registry.register(...)` calls land in `registry`.
 */
export async function discoverTools (options: DiscoverOptions): Promise<DiscoveryReport> {
  const { registry, logger } = options
  const dir = resolve(options.dir)
  const report: DiscoveryReport = { imported: [], skipped: [], ignored: [] }

  let files: string[]
  try {
    files = await listModuleFiles(dir)
  } catch (err) {
    if (!isMissing(err)) throw err
    logger.warn({ dir }, 'tool discovery: folder not found, no built-in tools loaded')
    return report
  }

  const query = `?registry=${idOf(registry)}`
  for (const file of files) {
    let registers: boolean
    try {
      const analysis = registersAtTopLevel(file, await readFile(file, 'utf8'))
      if (analysis.parseErrors.length > 0) throw new SyntaxError(analysis.parseErrors.join('; '))
      registers = analysis.registers
    } catch (err) {
      logger.error({ err, file }, 'tool discovery: cannot parse module, skipped')
      report.skipped.push({ file, error: messageOf(err) })
      continue
    }
    if (!registers) {
      logger.debug({ file }, 'tool discovery: no top-level registry.register(...), not imported')
      report.ignored.push(file)
      continue
    }
    const added: string[] = []
    try {
      await withRegistrationTarget(registry, () => import(pathToFileURL(file).href + query), (entry) => added.push(entry.name))
      report.imported.push(file)
    } catch (err) {
      // A module that throws after registering some tools is skipped whole: a half-loaded module
      // could serve tools whose set-up never finished.
      for (const name of added) registry.deregister(name)
      logger.error({ err, file, rolledBack: added }, 'tool discovery: module failed to import, skipped')
      report.skipped.push({ file, error: messageOf(err) })
    }
  }

  logger.info({
    dir, imported: report.imported.length, skipped: report.skipped.length, ignored: report.ignored.length
  }, 'tool discovery done')
  return report
}
