// Fault-tolerant discovery of tool modules: import every module under the tool folders (the
// built-in one, then the operator's own) that self-registers at its top level, into the registry
// of the app being built; a broken module is logged and skipped so the gateway still starts.
import { resolve } from 'node:path'
import type { Logger } from 'pino'
import type { ToolRegistry } from '../registry/registry.ts'
import { messageOf } from '../shared/objects.ts'
import { analyseHere, analyseInChild, type ModuleVerdict } from './analyse-modules.ts'
import { listModuleFiles } from './find-tool-modules.ts'
import { importToolModule } from './import-module.ts'
import { installRegistrySpecifier } from './registry-specifier.ts'
import { VerdictCache } from './verdict-cache.ts'

export interface DiscoveryReport {
  /** Modules imported that registered at least one tool. */
  imported: string[]
  /** Modules imported that registered no tool: their registration ran elsewhere or not at all. */
  registeredNothing: string[]
  /** Modules that failed to read, parse or import, with the reason. */
  skipped: Array<{ file: string, error: string }>
  /** Candidate files without a top-level `registry.register(...)`: helpers, never imported. */
  ignored: string[]
  /** Names of the tools the imported modules registered, in order. */
  tools: string[]
}

export type DiscoveryLogger = Pick<Logger, 'error' | 'warn' | 'info' | 'debug'>

export interface DiscoverOptions {
  /** A folder, or several scanned in order (the built-in one first, so its tools win collisions). */
  dir: string | readonly string[]
  registry: ToolRegistry
  logger: DiscoveryLogger
  /** Where the analysis's verdicts are remembered between starts (./verdict-cache.ts); unset: analyse every time. */
  cacheDir?: string
}

function isMissing (err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'ENOENT'
}

/** Whether the module's top level calls `registry.register(...)`; a module that cannot be read or parsed is skipped. */
function selfRegisters (verdict: ModuleVerdict, report: DiscoveryReport, logger: DiscoveryLogger): boolean {
  const { file } = verdict
  const error = 'readError' in verdict ? verdict.readError : verdict.parseErrors.join('; ')
  if (error !== '') {
    logger.error({ err: 'readError' in verdict ? new Error(error) : new SyntaxError(error), file }, 'tool discovery: cannot parse module, skipped')
    report.skipped.push({ file, error })
    return false
  }
  if ('registers' in verdict && !verdict.registers) {
    logger.debug({ file }, 'tool discovery: no top-level registry.register(...), not imported')
    report.ignored.push(file)
    return false
  }
  return true
}

/** The candidate modules of each folder, in order; a missing folder is logged and left out. */
export async function candidateFiles (dirs: readonly string[], logger: DiscoveryLogger): Promise<string[]> {
  const files: string[] = []
  for (const dir of dirs) {
    try {
      files.push(...await listModuleFiles(dir))
    } catch (err) {
      if (!isMissing(err)) throw err
      logger.warn({ dir }, 'tool discovery: folder not found, no tools loaded from it')
    }
  }
  return files
}

/** Each file's verdict, from a child process (see ./analyse-modules.ts), else from this one. */
async function analyseFresh (files: readonly string[], logger: DiscoveryLogger): Promise<ModuleVerdict[]> {
  if (files.length === 0) return []
  try {
    return await analyseInChild(files)
  } catch (err) {
    logger.warn({ err }, 'tool discovery: the analysis could not run in a child process, running it in the gateway\'s own')
    return await analyseHere(files)
  }
}

/** Each file's verdict, in order: remembered for modules that did not change, analysed for the others. */
export async function analyse (files: readonly string[], logger: DiscoveryLogger, cacheDir: string | undefined): Promise<ModuleVerdict[]> {
  if (files.length === 0) return []
  const cache = cacheDir === undefined ? undefined : await VerdictCache.open(cacheDir)
  if (cache === undefined) return await analyseFresh(files, logger)
  const known = await cache.known(files)
  const fresh = await analyseFresh(files.filter((file) => !known.has(file)), logger)
  cache.remember(fresh)
  await cache.save()
  logger.debug({ remembered: known.size, analysed: fresh.length }, 'tool discovery: module verdicts')
  const analysed = new Map(fresh.map((verdict) => [verdict.file, verdict]))
  return files.map((file) => known.get(file) ?? analysed.get(file)!)
}

/**
 * Scans each folder and imports, one after another in sorted order, the modules that register at
 * top level, so that their `registry.register(...)` calls land in `registry`.
 */
export async function discoverTools (options: DiscoverOptions): Promise<DiscoveryReport> {
  installRegistrySpecifier()
  const { registry, logger } = options
  const dirs = (typeof options.dir === 'string' ? [options.dir] : options.dir).map((dir) => resolve(dir))
  const report: DiscoveryReport = { imported: [], registeredNothing: [], skipped: [], ignored: [], tools: [] }
  // Which module registered each tool in this pass: a second one means a module ran twice.
  const registeredBy = new Map<string, string>()

  for (const verdict of await analyse(await candidateFiles(dirs, logger), logger, options.cacheDir)) {
    if (!selfRegisters(verdict, report, logger)) continue
    const { file } = verdict
    const outcome = await importToolModule(file, registry, (err) => {
      logger.error({ err, file }, 'tool discovery: registration after the module finished loading, refused')
    })
    if (!outcome.ok) {
      logger.error({ err: outcome.error, file, rolledBack: outcome.rolledBack }, 'tool discovery: module failed to import, skipped')
      report.skipped.push({ file, error: messageOf(outcome.error) })
      continue
    }
    if (outcome.tools.length === 0) {
      logger.warn({ file }, 'tool discovery: module imported but registered no tool (did its registry.register run ' +
        'later, in a timer or an unawaited promise, or on an object other than the gateway\'s registry?)')
      report.registeredNothing.push(file)
      continue
    }
    report.imported.push(file)
    for (const tool of new Set(outcome.tools)) {
      const first = registeredBy.get(tool)
      if (first !== undefined && first !== file) {
        logger.warn({ tool, file, first }, 'tool discovery: tool registered again by another module, the last one ' +
          'serves it (a tool module imported by another one runs twice: import helpers, not tool modules)')
      }
      if (first === undefined) report.tools.push(tool)
      registeredBy.set(tool, file)
    }
  }

  logger.info({
    dirs,
    imported: report.imported.length,
    registeredNothing: report.registeredNothing.length,
    skipped: report.skipped.length,
    ignored: report.ignored.length,
    tools: report.tools
  }, 'tool discovery done')
  return report
}
