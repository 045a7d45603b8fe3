// Reloads the configuration of a running gateway (SIGHUP, the watch of the config file, tests):
// reads and validates it with the start-up loader, then applies what can change live (settings,
// tool folders, MCP servers) and names what needs a restart. A bad configuration changes nothing
// and the log says exactly why. Reloads run one at a time; those asked for while one runs are
// served by one more pass. Calls in flight finish with the tools they started with: what a reload
// replaces is released only once the calls running on it have ended.
import type { Logger } from 'pino'
import type { GatewayConfig } from '../config/schema.ts'
import { rediscoverTools, type ToolChanges } from '../discovery/rediscover.ts'
import { defaultCacheDir } from '../discovery/verdict-cache.ts'
import type { Gateway } from '../core/gateway.ts'
import type { Authenticator } from '../http/auth.ts'
import type { McpReconfiguration } from '../mcp-client/manager.ts'
import { messageOf } from '../shared/objects.ts'
import type { ToolEntry } from '../registry/types.ts'
import { unknownConfigToolsets } from '../reports/toolsets.ts'
import { parseCustom } from '../toolsets/catalog.ts'
import { applySettings, classify, type SettingsChanges } from './settings.ts'

export interface ReloaderOptions {
  gateway: Gateway
  authenticator: Authenticator
  /** Reads and validates the configuration as start-up did; throws InvalidConfigError. */
  load: () => Promise<GatewayConfig>
  /** Further checks a start would make (protected mode); throws to refuse the configuration. */
  validate?: (config: GatewayConfig) => void
  env: NodeJS.ProcessEnv
  logger: Logger
  /** Where discovery's verdicts are remembered; default the one start-up uses. */
  cacheDir?: string
}

export type ReloadReport =
  | { ok: false, error: string }
  | {
    ok: true
    generation: { before: number, after: number }
    tools: Omit<ToolChanges, 'retired'>
    mcpServers: McpReconfiguration
  } & SettingsChanges

export class Reloader {
  readonly #options: ReloaderOptions
  readonly #logger: Logger
  #running: Promise<unknown> = Promise.resolve()
  /** The pass not started yet, shared by every request made meanwhile. */
  #pending: Promise<ReloadReport> | undefined

  constructor (options: ReloaderOptions) {
    this.#options = options
    this.#logger = options.logger.child({ component: 'reload' })
  }

  /** Reloads once the reload under way (if any) has finished; never rejects. */
  reload (): Promise<ReloadReport> {
    if (this.#pending !== undefined) return this.#pending
    const pass = this.#running.then(() => {
      this.#pending = undefined
      return this.#pass()
    })
    this.#pending = pass
    this.#running = pass
    return pass
  }

  async #pass (): Promise<ReloadReport> {
    let next: GatewayConfig
    try {
      next = await this.#options.load()
      parseCustom(next.toolsets)
      this.#options.validate?.(next)
    } catch (err) {
      const error = messageOf(err)
      this.#logger.error({ problems: error.split('\n').map((line) => line.trim()).filter(Boolean) },
        `configuration reload refused, the running configuration is kept: ${error}`)
      return { ok: false, error }
    }
    try {
      return await this.#apply(next)
    } catch (err) {
      this.#logger.error({ err }, 'configuration reload failed part way')
      return { ok: false, error: messageOf(err) }
    }
  }

  async #apply (next: GatewayConfig): Promise<ReloadReport> {
    const { gateway, authenticator, env } = this.#options
    const before = gateway.registry.generation
    const settings = classify(gateway.config as GatewayConfig, next)
    applySettings(gateway, authenticator, next, settings.applied, env)
    const { retired, ...tools } = await rediscoverTools({
      dirs: [next.toolsDir, ...next.extraToolsDirs],
      registry: gateway.registry,
      logger: this.#logger,
      cacheDir: this.#options.cacheDir ?? defaultCacheDir()
    })
    this.#release(retired)
    const mcpServers = await gateway.mcp.reconfigure(next.mcpServers, (entries) => gateway.dispatcher.running.ended(entries))
    // Names may resolve to other tools now (toolsets, a key's toolsets): caches per generation go.
    if (settings.applied.includes('toolsets') || settings.applied.includes('auth.keys')) gateway.registry.reconfigured()
    // Verdicts may read what changed (terminal.enabled, a web backend): probe again.
    gateway.availability.clear()
    const report = { ok: true as const, generation: { before, after: gateway.registry.generation }, tools, mcpServers, ...settings }
    this.#log(report)
    return report
  }

  /** Lets replaced tool modules release what they hold, once the calls running on them have ended. */
  #release (retired: readonly ToolEntry[]): void {
    const disposable = retired.filter((entry) => entry.dispose !== undefined)
    if (disposable.length === 0) return
    this.#options.gateway.dispatcher.running.ended(disposable).then(async () => {
      for (const entry of disposable) {
        try {
          await entry.dispose!()
        } catch (err) {
          this.#logger.error({ err, tool: entry.name }, 'tool dispose failed')
        }
      }
    }).catch(() => {})
  }

  #log (report: Extract<ReloadReport, { ok: true }>): void {
    const { tools, mcpServers, applied, needsRestart, generation } = report
    if (needsRestart.length > 0) {
      this.#logger.warn({ fields: needsRestart }, `configuration reload: ${needsRestart.join(', ')} changed but needs a restart; the running values are kept`)
    }
    for (const { where, toolset, closest } of unknownConfigToolsets(this.#options.gateway)) {
      this.#logger.warn({ where, toolset, closest }, 'the configuration names a toolset that does not exist')
    }
    this.#logger.info({
      tools: { added: tools.added, removed: tools.removed, updated: tools.updated, failed: tools.failed.map(({ file }) => file) },
      mcpServers,
      settingsApplied: applied,
      settingsNeedingRestart: needsRestart,
      generation
    }, 'configuration reloaded')
  }
}
