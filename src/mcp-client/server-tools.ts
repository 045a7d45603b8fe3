// Mirrors one MCP server's tools into the registry: names, filters, normalised schemas, one shared
// availability probe that reads the connection state, utility tools for resources and prompts, and
// a coalesced diff refresh on notifications/tools/list_changed (add, replace changed, remove gone)
// and when the list's ttlMs says it is stale (ttl-refresh.ts).
import type { Tool } from '@modelcontextprotocol/client'
import type { Logger } from 'pino'
import { messageOf } from '../shared/objects.ts'
import { annotationsFromMcp } from '../registry/annotations.ts'
import type { RegistryBatch } from '../registry/batch.ts'
import type { ToolRegistry } from '../registry/registry.ts'
import type { CheckFn } from '../registry/types.ts'
import { REAL_CLOCK, type McpClock } from './clock.ts'
import { describeTool } from './describe-tool.ts'
import { warnUnmatchedFilterNames, type ToolFilter } from './filter-names.ts'
import { RefreshScheduler } from './refresh-scheduler.ts'
import { relayedCall, type TokenExchangeSetting } from './relayed-call.ts'
import { TtlRefresh } from './ttl-refresh.ts'
import type { McpConnection } from './connection.ts'
import { assignToolNames, mcpToolsetName } from './naming.ts'
import { normalizeInputSchema, type SchemaNormalization } from '../json-schema/normalize.ts'
import type { LeftOutTool } from './tool-list.ts'
import type { Desired, SchemaWarning, SyncReport } from './tool-sync.ts'
import { utilityDesired } from './utility-tools.ts'
import type { TrustBook } from '../trust/trust-book.ts'
import { heldCheck } from './held-tools.ts'

export type { ToolFilter }

export interface McpServerToolsOptions {
  server: string
  connection: McpConnection
  registry: ToolRegistry
  logger: Logger
  filter?: ToolFilter
  /** Per-call deadline the dispatcher enforces (it aborts the handler's signal, which cancels the MCP request). */
  timeoutMs?: number
  /** Quiet period after a list_changed before the list is fetched again. */
  debounceMs?: number
  /** Least time between the starts of two refreshes, however often list_changed comes. */
  refreshIntervalMs?: number
  /** Least wait before a refresh the list's ttlMs asks for; default TTL_REFRESH_FLOOR_MS. */
  ttlFloorMs?: number
  /** Calls carry each caller's own identity, exchanged for this audience (auth.tokenExchange). */
  tokenExchange?: TokenExchangeSetting
  clock?: McpClock
  /** Pins and scans its tools' definitions (docs/trust.md); absent: served as listed. */
  trust?: TrustBook
}

export class McpServerTools {
  readonly server: string
  readonly toolset: string
  readonly #connection: McpConnection
  readonly #registry: ToolRegistry
  readonly #logger: Logger
  readonly #filter: ToolFilter
  readonly #timeoutMs: number | undefined
  readonly #tokenExchange: TokenExchangeSetting | undefined
  /** registry name → fingerprint of what we registered under it. */
  readonly #registered = new Map<string, string>()
  readonly #check: CheckFn
  readonly #scheduler: RefreshScheduler
  readonly #ttl: TtlRefresh
  /** Normalised schemas by their raw JSON: a refresh re-checks only the schemas that changed. */
  #normalized = new Map<string, SchemaNormalization>()
  #chain: Promise<unknown> = Promise.resolve()
  #aliasRefused = false
  #disposed = false
  #leftOut: readonly LeftOutTool[] = []
  #warnings: readonly SchemaWarning[] = []
  #filterWarned = ''
  readonly #onConnected = (): void => { this.apply(this.#connection.tools, this.#connection.leftOut) }
  readonly #onToolsChanged = (): void => this.#scheduler.request()
  readonly #trust: TrustBook | undefined
  // Pins changed (an approval, here or on another replica): the same list judged again.
  readonly #onTrustChanged = (): void => { if (this.#connection.state === 'connected') this.#onConnected() }

  constructor (options: McpServerToolsOptions) {
    this.server = options.server
    this.toolset = mcpToolsetName(options.server)
    this.#connection = options.connection
    this.#registry = options.registry
    this.#logger = options.logger
    this.#filter = options.filter ?? {}
    this.#tokenExchange = options.tokenExchange
    this.#timeoutMs = options.timeoutMs
    this.#trust = options.trust
    this.#trust?.on('changed', this.#onTrustChanged)
    this.#scheduler = new RefreshScheduler({
      clock: options.clock ?? REAL_CLOCK,
      debounceMs: options.debounceMs ?? 250,
      minIntervalMs: options.refreshIntervalMs ?? 1000,
      run: () => this.refresh()
    })
    this.#ttl = new TtlRefresh({ clock: options.clock ?? REAL_CLOCK, floorMs: options.ttlFloorMs, onStale: () => this.#scheduler.request() })
    const connection = this.#connection
    // One probe for every tool of the server: the checker runs it once per pass, and it only reads state.
    this.#check = Object.defineProperty(
      () => connection.state === 'connected' ? true : { available: false, reason: connection.describe() },
      'name', { value: `mcp:${options.server}` }
    ) as CheckFn
    connection.on('connected', this.#onConnected)
    connection.on('tools_changed', this.#onToolsChanged)
  }

  /** Registry names of the tools registered for this server, sorted. */
  get names (): string[] {
    return [...this.#registered.keys()].sort()
  }

  get count (): number {
    return this.#registered.size
  }

  /** The server's tools that the last synchronisation could not serve, each with its reason. */
  get leftOut (): readonly LeftOutTool[] {
    return this.#leftOut
  }

  /** Checks left out of the schemas of served tools (patterns the linear-time engine cannot run). */
  get schemaWarnings (): readonly SchemaWarning[] {
    return this.#warnings
  }

  /** Fetches the list again and applies the difference; serialised, never rejects. */
  refresh (): Promise<SyncReport | undefined> {
    const run = this.#chain.then(async () => {
      if (this.#disposed || this.#connection.state !== 'connected') return undefined
      try {
        const tools = await this.#connection.listTools()
        return this.apply(tools, this.#connection.leftOut)
      } catch (err) {
        this.#logger.warn({ err: messageOf(err) }, 'MCP tool list refresh failed')
        return undefined
      }
    })
    this.#chain = run
    return run
  }

  /**
   * Makes the registry hold exactly `tools` (filtered, named, normalised) plus the utility tools.
   * `leftOut`: entries of the list already refused (not tools at all), reported with the others.
   */
  apply (tools: readonly Tool[], leftOut: readonly LeftOutTool[] = []): SyncReport {
    const report: SyncReport = { added: [], updated: [], removed: [], skipped: [...leftOut] }
    if (this.#disposed) return report
    this.#filterWarned = warnUnmatchedFilterNames(this.#logger, this.#filter, tools, this.#filterWarned)
    const desired = this.#desired(tools, report)
    // One registry change for the whole list: a server of thousands of tools is one snapshot copy.
    this.#registry.update((batch) => {
      this.#removeUndesired(batch, desired, report)
      for (const tool of desired.values()) this.#registerChanged(batch, tool, report)
    })
    this.#ensureAlias()
    this.#leftOut = report.skipped
    this.#warnings = [...desired.values()].flatMap((tool) => tool.warnings.map((warning) => ({ tool: tool.raw, warning })))
    const changed = report.added.length + report.updated.length + report.removed.length > 0
    if (changed) this.#logger.info({ added: report.added, updated: report.updated, removed: report.removed }, 'MCP tools synchronised')
    // Every list applied is the connection's latest: its ttlMs plans the next look (none when absent).
    this.#ttl.listed(this.#connection.listTtlMs, changed)
    return report
  }

  /** Stops listening and removes this server's tools from the registry. */
  dispose (): void {
    this.#disposed = true
    this.#scheduler.dispose()
    this.#ttl.dispose()
    this.#connection.off('connected', this.#onConnected)
    this.#connection.off('tools_changed', this.#onToolsChanged)
    this.#trust?.off('changed', this.#onTrustChanged)
    this.#registry.update((batch) => this.#removeUndesired(batch, new Map(), { removed: [] }))
  }

  /** Removes the tools of this server that are no longer wanted. */
  #removeUndesired (batch: RegistryBatch, desired: ReadonlyMap<string, unknown>, report: Pick<SyncReport, 'removed'>): void {
    const snapshot = this.#registry.snapshot()
    for (const name of [...this.#registered.keys()]) {
      if (desired.has(name)) continue
      this.#registered.delete(name)
      this.#trust?.forget(name)
      const entry = snapshot.tools.get(name)
      // Someone else may hold the name by now (a plugin allowed to override): never remove theirs.
      if (entry?.origin.kind === 'mcp' && entry.origin.server === this.server && batch.deregister(name)) report.removed.push(name)
    }
  }

  /** Registers a tool that is new or changed since the last list; an unchanged one is left as it is. */
  #registerChanged (batch: RegistryBatch, tool: Desired, report: SyncReport): void {
    const known = this.#registered.get(tool.name)
    if (known === tool.fingerprint) return
    if (tool.warnings.length > 0) this.#logger.warn({ tool: tool.raw, warnings: tool.warnings }, 'MCP tool schema check dropped')
    try {
      batch.register({
        name: tool.name,
        toolset: this.toolset,
        schema: { description: tool.description, parameters: tool.parameters },
        handler: tool.handler,
        annotations: tool.annotations,
        // A held tool is listed in /tools, unavailable with its reason, and served nowhere else.
        checkFn: tool.held === undefined ? this.#check : heldCheck(tool.held),
        timeoutMs: this.#timeoutMs,
        origin: { kind: 'mcp', server: this.server }
      })
      this.#registered.set(tool.name, tool.fingerprint)
      if (known === undefined) report.added.push(tool.name)
      else report.updated.push(tool.name)
    } catch (err) {
      // A built-in, a plugin or another server has the name: that tool stays out, the others go on.
      const reason = messageOf(err)
      this.#logger.error({ tool: tool.name, raw: tool.raw, err: reason }, 'MCP tool not registered')
      report.skipped.push({ tool: tool.raw, reason })
    }
  }

  /** The tool's schema normalised, or the copy made for the same raw schema before (logged only when new). */
  #normalize (tool: Tool, now: Map<string, SchemaNormalization>): { key: string, normalized: SchemaNormalization } {
    const key = JSON.stringify(tool.inputSchema) ?? 'undefined'
    let normalized = now.get(key) ?? this.#normalized.get(key)
    if (normalized === undefined) {
      normalized = normalizeInputSchema(tool.inputSchema)
      if (!normalized.ok) this.#logger.warn({ tool: tool.name, reason: normalized.reason }, 'MCP tool skipped')
      else if (normalized.notes.length > 0) this.#logger.debug({ tool: tool.name, notes: normalized.notes.slice(0, 20) }, 'MCP tool schema normalised')
    }
    now.set(key, normalized)
    return { key, normalized }
  }

  #keep (raw: string): boolean {
    const { include, exclude } = this.#filter
    if (include !== undefined) return include.includes(raw)
    return !(exclude ?? []).includes(raw)
  }

  #desired (tools: readonly Tool[], report: SyncReport): Map<string, Desired> {
    const desired = new Map<string, Desired>()
    const kept = tools.filter((tool) => typeof tool?.name === 'string' && tool.name !== '' && this.#keep(tool.name))
    const { names, collisions } = assignToolNames(this.server, kept.map((tool) => tool.name))
    for (const collision of collisions) {
      const reason = `${collision.raw.map((raw) => JSON.stringify(raw)).join(' and ')} all map to "${collision.name}"; none of them is registered`
      this.#logger.error({ name: collision.name, raw: collision.raw }, `MCP tool names collide: ${reason}`)
      for (const raw of collision.raw) report.skipped.push({ tool: raw, reason })
    }
    const seen = new Set<string>()
    this.#trust?.listing(this.server)
    const normalizedNow = new Map<string, SchemaNormalization>()
    for (const tool of kept) {
      const name = names.get(tool.name)
      if (name === undefined || seen.has(tool.name)) continue
      seen.add(tool.name)
      // Judged as listed, then served cleaned of what the model should not read unseen.
      const judged = this.#trust?.judge(this.server, name, tool)
      const listed = judged?.tool ?? tool
      const { key, normalized } = this.#normalize(listed, normalizedNow)
      if (!normalized.ok) {
        report.skipped.push({ tool: tool.name, reason: normalized.reason })
        continue
      }
      const raw = tool.name
      const description = describeTool(this.server, listed)
      const annotations = annotationsFromMcp(listed.annotations)
      const held = judged?.trust.held === true ? judged.trust.reason : undefined
      desired.set(name, {
        name,
        raw,
        description,
        parameters: normalized.schema,
        handler: relayedCall(this.#connection, raw, this.#tokenExchange),
        annotations,
        // The raw schema stands for its normalised copy: the same input always normalises alike.
        fingerprint: JSON.stringify([raw, description, key, annotations, held]),
        warnings: normalized.warnings,
        held
      })
    }
    this.#normalized = normalizedNow
    for (const utility of utilityDesired(this.server, this.#connection)) {
      if (!desired.has(utility.name)) desired.set(utility.name, utility)
      else this.#logger.warn({ tool: utility.name }, 'MCP utility tool skipped: the server has a tool of that name')
    }
    return desired
  }

  #ensureAlias (): void {
    if (this.#registered.size === 0) return
    const snapshot = this.#registry.snapshot()
    if (snapshot.aliases.get(this.server) === this.toolset) return
    try {
      this.#registry.registerAlias(this.server, this.toolset)
      this.#aliasRefused = false
    } catch (err) {
      // The server's tools stay reachable as toolset "mcp-<server>"; only the short name is lost.
      if (!this.#aliasRefused) this.#logger.warn({ alias: this.server, toolset: this.toolset, err: messageOf(err) }, 'MCP toolset alias not registered')
      this.#aliasRefused = true
    }
  }
}
