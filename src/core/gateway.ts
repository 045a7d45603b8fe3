// The gateway core for one app: registry, availability, toolsets, definitions, dispatcher and MCP
// servers built from a validated config, and the start-up phases (built-in tools, then MCP
// servers, then plugins). It knows nothing of HTTP; src/app/app.ts puts routes in front of it.
import { join } from 'node:path'
import type { Logger } from 'pino'
import { AvailabilityChecker } from '../availability/checker.ts'
import { isGuarded } from '../config/protected-mode.ts'
import type { GatewayConfig } from '../config/schema.ts'
import { DefinitionsBuilder } from '../definitions/definitions.ts'
import { discoverTools, type DiscoveryReport } from '../discovery/discover.ts'
import { defaultCacheDir } from '../discovery/verdict-cache.ts'
import { Dispatcher } from '../dispatch/dispatcher.ts'
import { ErrorContentCleaner } from '../dispatch/call/error-content.ts'
import { secretSettingsOf } from '../dispatch/call/redact.ts'
import { HookRegistry } from '../dispatch/call/hooks.ts'
import { McpManager } from '../mcp-client/manager.ts'
import { loadPlugins, type PluginReport } from '../plugins/loader.ts'
import { ToolRegistry } from '../registry/registry.ts'
import { ResultStore } from '../results/result-store.ts'
import { registerSearchTool } from '../search/search-tool.ts'
import { ToolSearch } from '../search/tool-search.ts'
import { ToolsetCatalog } from '../toolsets/catalog.ts'
import type { Tracer } from '../tracing/tracer.ts'
import { FilePinStore } from '../trust/pin-store.ts'
import { TrustBook } from '../trust/trust-book.ts'

export interface Gateway {
  /**
   * The configuration as it stands: one object, never edited, that a reload replaces whole (as the
   * registry replaces its snapshot). Read it where it is used; a call keeps the one it started with.
   */
  readonly config: GatewayConfig
  /** Makes `next` the running configuration (a reload, after it has merged what applies live). */
  replaceConfig: (next: GatewayConfig) => void
  readonly registry: ToolRegistry
  readonly availability: AvailabilityChecker
  readonly catalog: ToolsetCatalog
  readonly definitions: DefinitionsBuilder
  /** Ranks tools for a task (GET /definitions?query=, the search_tools tool). */
  readonly search: ToolSearch
  readonly hooks: HookRegistry
  readonly dispatcher: Dispatcher
  /** Redacts secrets and neutralises framing in error text for the model (dispatch and the HTTP edge). */
  readonly errorContent: ErrorContentCleaner
  readonly mcp: McpManager
  /** The pins of upstream tools' definitions and what is held (docs/trust.md). */
  readonly trust: TrustBook
  /** The full text of results cut to their size cap, per caller, for a limited time. */
  readonly results: ResultStore
  /** Gives each call and request a span; undefined when tracing is off. */
  readonly tracer: Tracer | undefined
  /** Fires when shutdown gives up waiting: every handler still running is told to stop. */
  readonly shutdownSignal: AbortSignal
  /** Loads tools in order: built-ins, then MCP servers, then plugins. */
  start: () => Promise<{ builtins: DiscoveryReport, plugins: PluginReport }>
  /** Aborts handlers still running and releases what tools hold (child processes). */
  stop: () => Promise<void>
}

/** Lets every tool release what it holds; one that fails is logged and the others still run. */
async function disposeTools (registry: ToolRegistry, logger: Logger): Promise<void> {
  for (const entry of registry.snapshot().tools.values()) {
    try {
      await entry.dispose?.()
    } catch (err) {
      logger.error({ err, tool: entry.name }, 'tool dispose failed')
    }
  }
}

/**
 * Lets every tool tidy up after an earlier run, in the background; one that fails is logged. A
 * `prepare` shared by several tools (one function object) runs once.
 */
function prepareTools (registry: ToolRegistry, config: GatewayConfig, logger: Logger): void {
  const seen = new Set<unknown>()
  for (const entry of registry.snapshot().tools.values()) {
    if (entry.prepare === undefined || seen.has(entry.prepare)) continue
    seen.add(entry.prepare)
    Promise.resolve().then(async () => { await entry.prepare?.({ config }) }).catch((err: unknown) => {
      logger.error({ err, tool: entry.name }, 'tool prepare failed')
    })
  }
}

/**
 * The start-up phases, in order: built-in tools, then MCP servers, then plugins; then each tool's
 * prepare, in the background.
 */
async function loadTools (parts: Pick<Gateway, 'registry' | 'search' | 'availability' | 'mcp' | 'hooks' | 'trust'>, current: () => GatewayConfig, logger: Logger): Promise<{ builtins: DiscoveryReport, plugins: PluginReport }> {
  const { registry, search, availability, mcp, hooks, trust } = parts
  const config = current()
  const builtins = await discoverTools({ dir: [config.toolsDir, ...config.extraToolsDirs], registry, logger: logger.child({ component: 'discovery' }), cacheDir: defaultCacheDir() })
  if (config.searchTool) registerSearchTool(registry, search, availability)
  // Loaded only then: a gateway without code mode loads nothing of QuickJS.
  if (config.code.enabled) (await import('../code/execute-code.ts')).registerCodeTool(registry, config.code)
  // Servers connect in parallel; readiness waits for each at most its connectTimeoutMs, and a
  // server that is down keeps reconnecting in the background without holding the others.
  // The pins first: an MCP server's first list is judged against them.
  await trust.start()
  mcp.start()
  await mcp.ready()
  const plugins = await loadPlugins({
    plugins: config.plugins,
    baseDir: config.pluginsDir ?? process.cwd(),
    registry,
    hooks,
    logger: logger.child({ component: 'plugins' }),
    config: current
  })
  prepareTools(registry, config, logger)
  return { builtins, plugins }
}

export interface GatewayOptions {
  /** Where the values of the secret environment variables are read; default process.env. */
  env?: NodeJS.ProcessEnv
  /** Gives each call a span (src/tracing/start.ts); none: calls are not traced. */
  tracer?: Tracer
}

export function createGateway (config: GatewayConfig, logger: Logger, options: GatewayOptions = {}): Gateway {
  const { env = process.env, tracer } = options
  let running = config
  const current = (): GatewayConfig => running
  const registry = new ToolRegistry({ logger: logger.child({ component: 'registry' }) })
  const availability = new AvailabilityChecker({ ...config.availability, config: current, logger: logger.child({ component: 'availability' }) })
  const catalog = new ToolsetCatalog({ custom: config.toolsets })
  const definitions = new DefinitionsBuilder({ registry, availability, logger })
  const search = new ToolSearch(registry)
  const hooks = new HookRegistry()
  const errorContent = new ErrorContentCleaner(secretSettingsOf(config, env))
  const results = new ResultStore(config.results, { open: !isGuarded(config) })
  const dispatcher = new Dispatcher({ registry, availability, hooks, logger, config: current, errorContent, results, tracer })
  // Pins in the state folder's file; the app hands it Redis (shared by the replicas) before start.
  const trust = new TrustBook({ settings: () => running.trust, store: new FilePinStore(config.trust.pinsFile ?? join(config.stateDir, 'pins.json')), logger: logger.child({ component: 'trust' }) })
  const mcp = new McpManager({ servers: config.mcpServers, registry, logger, trust, tuning: { maxMessageBytes: config.mcp.upstreamMaxMessageBytes } })
  // A server's state decides its tools' availability: drop cached verdicts (and their grace) when
  // it changes, so a crashed server's tools turn unavailable at once, not after a TTL.
  mcp.on('state', () => availability.clear())
  const shutdown = new AbortController()
  let stopped = false

  return {
    get config () { return running },
    replaceConfig (next) { running = next },
    registry,
    availability,
    catalog,
    definitions,
    search,
    hooks,
    dispatcher,
    errorContent,
    mcp,
    trust,
    results,
    tracer,
    shutdownSignal: shutdown.signal,
    start: async () => await loadTools({ registry, search, availability, mcp, hooks, trust }, current, logger),
    async stop () {
      if (stopped) return
      stopped = true
      shutdown.abort(new Error('the gateway is shutting down'))
      trust.stop()
      await mcp.stop()
      results.clear()
      await disposeTools(registry, logger)
    }
  }
}
