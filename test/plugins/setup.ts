// The gateway's core (test/helpers/gateway.ts), not started and keeping no results, in a temp folder
// that plugin fixtures are written into, for the plugin tests: they load the plugins themselves.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { TestContext } from 'node:test'
import type { GatewayConfig, PluginConfig } from '../../src/config/schema.ts'
import type { DefinitionsBuilder } from '../../src/definitions/definitions.ts'
import type { Dispatcher } from '../../src/dispatch/dispatcher.ts'
import type { HookRegistry } from '../../src/dispatch/call/hooks.ts'
import type { DispatchOutcome } from '../../src/dispatch/call/outcome.ts'
import type { DispatchRequest } from '../../src/dispatch/call/pipeline.ts'
import { loadPlugins, type LoadPluginsOptions, type PluginReport } from '../../src/plugins/loader.ts'
import type { ToolRegistry } from '../../src/registry/registry.ts'
import { buildTestGateway, FRESH_AVAILABILITY, NO_KEPT_RESULTS } from '../helpers/gateway.ts'
import type { CapturedLogger } from '../helpers/logger.ts'

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
  let stop = async (): Promise<void> => {}
  t.after(async () => {
    await stop()
    await rm(dir, { recursive: true, force: true })
  })
  const { gateway, config, log } = await buildTestGateway({ env: { LOG_LEVEL: 'silent', WORKSPACE_ROOT: join(dir, 'workspace'), ...NO_KEPT_RESULTS, ...env }, cwd: dir, availability: FRESH_AVAILABILITY })
  stop = gateway.stop
  const { registry, hooks, dispatcher, definitions } = gateway
  const call = async (request: DispatchRequest): Promise<DispatchOutcome> => (await dispatcher.dispatch(request)).outcome
  const write = async (relative: string, text: string): Promise<string> => {
    const path = join(dir, relative)
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, text)
    return path
  }
  const load = (plugins: PluginConfig[], extra: Partial<LoadPluginsOptions> = {}) =>
    loadPlugins({ plugins, baseDir: dir, registry, hooks, logger: log.logger, config: () => gateway.config, ...extra })
  return { dir, config, log, registry, hooks, dispatcher, definitions, call, write, load }
}
