// Loads the plugins the config lists, last of the three start-up phases (built-ins, MCP, plugins),
// in config order. Each plugin's register(ctx) adds tools and hooks through ctx; a plugin that fails
// anywhere (resolution, import, register, a refused registration, a deadline) is logged, skipped and
// rolled back whole, so no half-loaded plugin serves anything, and the other plugins still load;
// unless it is marked `required`, and then start-up fails naming it.
import { pathToFileURL } from 'node:url'
import type { Logger } from 'pino'
import type { GatewayConfig, PluginConfig } from '../config/schema.ts'
import type { HookName, HookRegistry } from '../dispatch/call/hooks.ts'
import { InvalidToolError, PluginLoadError } from '../shared/errors.ts'
import type { ToolRegistry } from '../registry/registry.ts'
import type { RegisterOptions, ToolEntry } from '../registry/types.ts'
import { untyped } from '../registry/untyped.ts'
import { resolvePluginModule } from './resolve.ts'
import type { PluginContext, PluginModule, PluginToolOptions, RegisterFunction } from './types.ts'
import { withTimeout } from '../shared/timers.ts'
import { isRecord, messageOf } from '../shared/objects.ts'

export const DEFAULT_PLUGIN_LOAD_TIMEOUT_MS = 30_000

export interface LoadPluginsOptions {
  /** `config.plugins`, in order: their hooks run in this order. */
  plugins: readonly PluginConfig[]
  /** Relative module paths resolve against it, and packages are looked up from it: the config file's folder, or cwd. */
  baseDir: string
  registry: ToolRegistry
  hooks: HookRegistry
  logger: Logger
  /** The configuration as it stands (a reload swaps it): what a plugin reads as ctx.config. */
  config: () => GatewayConfig
  /** Deadline of one plugin's import and register(ctx); default 30 s. */
  timeoutMs?: number
}

export interface LoadedPlugin {
  name: string
  /** The module string as written in the config. */
  module: string
  /** The file imported. */
  file: string
  /** Tools it registered, in order. */
  tools: string[]
  /** Hook points it added hooks to. */
  hooks: HookName[]
}

export interface FailedPlugin {
  module: string
  /** Known once the module string resolved. */
  name?: string
  error: string
}

export interface PluginReport {
  loaded: LoadedPlugin[]
  failed: FailedPlugin[]
}

/** The hook owner of a plugin in HookRegistry (and in hook fault log lines). */
export function hookOwnerOf (plugin: string): string {
  return `plugin:${plugin}`
}

function normaliseEntry (entry: PluginConfig): { module: string, allowToolOverride: boolean, options: unknown } {
  if (typeof entry === 'string') return { module: entry, allowToolOverride: false, options: undefined }
  if (isRecord(entry) && typeof entry.module === 'string') {
    return { module: entry.module, allowToolOverride: entry.allowToolOverride === true, options: entry.options }
  }
  throw new PluginLoadError(String(entry), 'a plugin entry must be a module string or { module, allowToolOverride?, options? }')
}

/** `export function register`, `export default { register }`, or `export default function`. */
function registerFunctionOf (mod: PluginModule, module: string): RegisterFunction {
  if (typeof mod.register === 'function') return mod.register
  const fallback = mod.default
  if (typeof fallback === 'function') return fallback
  if (isRecord(fallback) && typeof fallback.register === 'function') return fallback.register as RegisterFunction
  throw new PluginLoadError(module, `plugin "${module}" exports no register(ctx) function (export function register, or export default { register })`)
}

/** The options that re-register a replaced entry as it was. */
function optionsOf (entry: ToolEntry): RegisterOptions {
  return {
    name: entry.name,
    toolset: entry.toolset,
    schema: entry.schema,
    handler: entry.handler,
    checkFn: entry.checkFn,
    requiresEnv: [...entry.requiresEnv],
    description: entry.description,
    emoji: entry.emoji,
    maxResultSizeChars: entry.maxResultSizeChars,
    timeoutMs: entry.timeoutMs,
    dynamicSchemaOverrides: entry.dynamicSchemaOverrides,
    dispose: entry.dispose,
    annotations: entry.annotations,
    origin: entry.origin
  }
}

// The timer stays referenced: a plugin stuck on a promise nothing will settle must fail with this
// message, not let the process exit in the middle of start-up.
function withDeadline<T> (work: Promise<T>, ms: number, plugin: string, what: string): Promise<T> {
  return withTimeout(work, ms, () => { throw new PluginLoadError(plugin, `${what} did not finish within ${ms} ms`) })
}

/** One plugin's registrations, so that a failed load can be undone exactly. */
class PluginSession {
  readonly name: string
  readonly owner: string
  readonly tools: string[] = []
  readonly hooks = new Set<HookName>()
  /** The first registration the gateway refused: it fails the load even if the plugin caught it. */
  refused?: unknown
  #state: 'loading' | 'loaded' | 'failed' = 'loading'
  /** What each tool name held before this plugin first registered it (undefined: nothing). */
  readonly #previous = new Map<string, ToolEntry | undefined>()
  readonly #aliasesBefore: ReadonlyMap<string, string>
  readonly #registry: ToolRegistry
  readonly #hookRegistry: HookRegistry
  readonly #logger: Logger
  readonly #allowToolOverride: boolean

  constructor (name: string, allowToolOverride: boolean, registry: ToolRegistry, hooks: HookRegistry, logger: Logger) {
    this.name = name
    this.owner = hookOwnerOf(name)
    this.#allowToolOverride = allowToolOverride
    this.#registry = registry
    this.#hookRegistry = hooks
    this.#logger = logger
    this.#aliasesBefore = registry.snapshot().aliases
  }

  #assertOpen (what: string): void {
    if (this.#state === 'failed') {
      throw new InvalidToolError(`plugin "${this.name}" failed to load; ${what} refused`)
    }
  }

  /** Refusals while loading are remembered; after a successful load they only reach the plugin. */
  #guard<T> (what: string, fn: () => T): T {
    this.#assertOpen(what)
    try {
      return fn()
    } catch (err) {
      if (this.#state === 'loading') this.refused ??= err
      else this.#logger.error({ err }, `plugin ${what} refused`)
      throw err
    }
  }

  registerTool<P extends object> (options: PluginToolOptions<P>): ToolEntry {
    return this.#guard('registerTool', () => {
      if (!isRecord(options)) throw new InvalidToolError(`plugin "${this.name}": registerTool needs an options object`)
      const name = options.name
      const before = this.#registry.getEntry(name)
      const entry = this.#registry.register({
        ...untyped({ ...options, toolset: options.toolset ?? this.name }),
        // Forced: a plugin cannot pass itself off as a built-in or an MCP server, nor grant itself overrides.
        origin: { kind: 'plugin', plugin: this.name, allowToolOverride: this.#allowToolOverride }
      })
      if (!this.#previous.has(name)) {
        this.#previous.set(name, before)
        this.tools.push(name)
      }
      return entry
    })
  }

  registerHook (name: HookName, fn: (event: never) => unknown): void {
    this.#guard('registerHook', () => {
      this.#hookRegistry.add(name, fn as never, this.owner)
      this.hooks.add(name)
    })
  }

  loaded (): void {
    this.#state = 'loaded'
  }

  /** Removes its hooks, removes its tools and puts back what they replaced, then disposes them. */
  async rollBack (): Promise<string[]> {
    this.#state = 'failed'
    this.#hookRegistry.removeOwner(this.owner)
    const removed: ToolEntry[] = []
    for (const name of [...this.tools].reverse()) {
      const current = this.#registry.getEntry(name)
      if (current?.origin.kind === 'plugin' && current.origin.plugin === this.name) {
        this.#registry.deregister(name)
        removed.push(current)
      }
      const previous = this.#previous.get(name)
      if (previous !== undefined && this.#registry.getEntry(name) === undefined) {
        try {
          this.#registry.register(optionsOf(previous))
        } catch (err) {
          this.#logger.error({ err, tool: name }, 'plugin roll-back: cannot restore the tool it replaced')
        }
      }
    }
    // An override that emptied a toolset took its aliases (an MCP server's short name) with it.
    for (const [alias, toolset] of this.#aliasesBefore) {
      if (this.#registry.snapshot().aliases.has(alias)) continue
      try {
        this.#registry.registerAlias(alias, toolset)
      } catch (err) {
        this.#logger.debug({ err, alias, toolset }, 'plugin roll-back: alias not restored')
      }
    }
    for (const entry of removed) {
      try {
        await entry.dispose?.()
      } catch (err) {
        this.#logger.error({ err, tool: entry.name }, 'plugin roll-back: tool dispose failed')
      }
    }
    return removed.map((entry) => entry.name)
  }
}

/** `required: true` on an entry: the gateway must not run without it (a policy plugin). */
function isRequired (entry: PluginConfig): boolean {
  return isRecord(entry) && entry.required === true
}

/**
 * Loads `options.plugins` one after another. A plugin's fault is logged at error level, rolled back
 * and listed in `failed`; only a plugin marked `required` turns it into a rejection (naming the
 * plugin), and then no further plugin loads.
 */
export async function loadPlugins (options: LoadPluginsOptions): Promise<PluginReport> {
  const { registry, hooks, config, baseDir } = options
  const logger = options.logger
  const timeoutMs = options.timeoutMs ?? DEFAULT_PLUGIN_LOAD_TIMEOUT_MS
  const report: PluginReport = { loaded: [], failed: [] }
  const loadedFrom = new Map<string, string>()

  for (const raw of options.plugins) {
    const module = typeof raw === 'string' ? raw : String((raw as { module?: unknown })?.module)
    let name: string | undefined
    let session: PluginSession | undefined
    try {
      const entry = normaliseEntry(raw)
      const resolved = resolvePluginModule(entry.module, baseDir)
      name = resolved.name
      const first = loadedFrom.get(name)
      if (first !== undefined) {
        throw new PluginLoadError(name, `duplicate plugin name "${name}": "${first}" already loaded under that name (a plugin is named after its file or package)`)
      }
      const pluginLogger = logger.child({ plugin: name })
      const current = new PluginSession(name, entry.allowToolOverride, registry, hooks, pluginLogger)
      session = current
      const ctx: PluginContext = Object.freeze({
        name,
        options: entry.options,
        get config () { return config() },
        baseDir,
        logger: pluginLogger,
        registerTool: (tool) => current.registerTool(tool),
        registerHook: (hook: HookName, fn: (event: never) => unknown) => current.registerHook(hook, fn)
      })
      await withDeadline((async () => {
        const mod = await import(pathToFileURL(resolved.file).href) as PluginModule
        await registerFunctionOf(mod, entry.module)(ctx)
      })(), timeoutMs, name, `plugin "${name}": import and register(ctx)`)
      if (current.refused !== undefined) throw current.refused
      current.loaded()
      loadedFrom.set(name, entry.module)
      const loaded = { name, module: entry.module, file: resolved.file, tools: [...current.tools], hooks: [...current.hooks] }
      report.loaded.push(loaded)
      pluginLogger.info({ module: entry.module, tools: loaded.tools, hooks: loaded.hooks }, 'plugin loaded')
    } catch (err) {
      const rolledBack = session === undefined ? [] : await session.rollBack()
      // The plugin's own error (a throw in register, a refused registration) is kept as the cause,
      // whose stack the log line shows; the report carries its message as it is.
      const failure = err instanceof PluginLoadError ? err : new PluginLoadError(name ?? module, `plugin "${name ?? module}" failed to load`, { cause: err })
      report.failed.push({ module, name, error: messageOf(err) })
      logger.error({ err: failure, plugin: name, module, rolledBack }, 'plugin failed to load; skipped (its tools and hooks removed)')
      if (isRequired(raw)) {
        throw new PluginLoadError(name ?? module, `required plugin "${name ?? module}" failed to load: ${messageOf(err)}`, { cause: err })
      }
    }
  }

  logger.info({ loaded: report.loaded.map((p) => p.name), failed: report.failed.length }, 'plugins loaded')
  return report
}
