// A real registry, hook registry, availability checker, dispatcher and definitions builder in a
// temp folder that plugin fixtures are written into, for the plugin tests.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { TestContext } from 'node:test'
import { AvailabilityChecker } from '../../src/availability/checker.ts'
import { loadConfig } from '../../src/config/load.ts'
import type { GatewayConfig, PluginConfig } from '../../src/config/schema.ts'
import { DefinitionsBuilder } from '../../src/definitions/definitions.ts'
import { Dispatcher } from '../../src/dispatch/dispatcher.ts'
import { HookRegistry } from '../../src/dispatch/call/hooks.ts'
import type { DispatchOutcome } from '../../src/dispatch/call/outcome.ts'
import type { DispatchRequest } from '../../src/dispatch/call/pipeline.ts'
import { loadPlugins, type LoadPluginsOptions, type PluginReport } from '../../src/plugins/loader.ts'
import { ToolRegistry } from '../../src/registry/registry.ts'
import { captureLogger, type CapturedLogger } from '../helpers/logger.ts'

export interface PluginSetup {
  dir: string
  config: GatewayConfig
  log: CapturedLogger
  registry: ToolRegistry
  hooks: HookRegistry
  dispatcher: Dispatcher
  definitions: DefinitionsBuilder
  /** The envelope of a call through the dispatcher. */
  call: (request: DispatchRequest) => Promise<DispatchOutcome>
  /** Writes a file under `dir` (folders created) and returns its absolute path. */
  write: (relative: string, text: string) => Promise<string>
  load: (plugins: PluginConfig[], extra?: Partial<LoadPluginsOptions>) => Promise<PluginReport>
}

export async function pluginSetup (t: TestContext, env: Record<string, string> = {}): Promise<PluginSetup> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-plugins-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const config = await loadConfig({ env: { LOG_LEVEL: 'silent', WORKSPACE_ROOT: join(dir, 'workspace'), ...env }, cwd: dir })
  const log = captureLogger()
  const registry = new ToolRegistry({ logger: log.logger })
  const hooks = new HookRegistry()
  const availability = new AvailabilityChecker({ config: () => config, ttlMs: 1, graceMs: 0 })
  const dispatcher = new Dispatcher({ registry, availability, hooks, logger: log.logger, config: () => config })
  const call = async (request: DispatchRequest): Promise<DispatchOutcome> => (await dispatcher.dispatch(request)).outcome
  const definitions = new DefinitionsBuilder({ registry, availability, logger: log.logger })
  const write = async (relative: string, text: string): Promise<string> => {
    const path = join(dir, relative)
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, text)
    return path
  }
  const load = (plugins: PluginConfig[], extra: Partial<LoadPluginsOptions> = {}) =>
    loadPlugins({ plugins, baseDir: dir, registry, hooks, logger: log.logger, config: () => config, ...extra })
  return { dir, config, log, registry, hooks, dispatcher, definitions, call, write, load }
}
