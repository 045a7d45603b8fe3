// Every configured MCP server: connected in parallel at start, bounded readiness so a down server
// never holds up the gateway, the state of each for operators, and a stop that reaps every child.
// The connections (and the MCP client SDK) load in start(), only when a server is configured.
import { EventEmitter } from 'node:events'
import type { Logger } from 'pino'
import type { McpServerConfig } from '../config/schema.ts'
import { messageOf, sortedJson } from '../shared/objects.ts'
import type { ToolRegistry } from '../registry/registry.ts'
import type { ToolEntry } from '../registry/types.ts'
import { REAL_CLOCK, type McpClock } from './clock.ts'
import type { McpConnection, McpConnectionState, McpTransportKind } from './connection.ts'
import { sanitizeNamePart } from './naming.ts'
import type { ProtocolEra } from './protocol.ts'
import type { McpConnectionTuning } from './tuning.ts'
import type { McpServerTools } from './server-tools.ts'
import type { TrustBook } from '../trust/trust-book.ts'
import { withTimeout } from '../shared/timers.ts'

export interface McpServerStatus {
  server: string
  /** The registry toolset of its tools (`mcp-<server>`), so /toolsets can show the state beside it. */
  toolset: string
  state: McpConnectionState
  transport: McpTransportKind
  /** Tools registered for it right now (utility tools included). */
  tools: number
  /** Tools it lists that are not served (unrepairable schema, name clash...), with the reason. */
  toolsLeftOut: Array<{ tool: string, reason: string }>
  /** Checks left out of the schemas of its served tools (patterns the linear-time engine cannot run). */
  schemaWarnings: Array<{ tool: string, warning: string }>
  lastError: string | null
  /** When it entered this state (ISO 8601). */
  since: string
  /** The MCP revision spoken (2026-07-28, 2025-11-25, ...) while connected; null otherwise. */
  protocolVersion: string | null
  /** Its era: modern (2026-07-28 and later, server/discover) or legacy (2025, initialize); null while not connected. */
  protocolEra: ProtocolEra | null
}

export interface McpManagerOptions {
  /** `config.mcpServers`. */
  servers: Readonly<Record<string, McpServerConfig>>
  registry: ToolRegistry
  logger: Logger
  /** Injected time for tests; default real time. */
  clock?: McpClock
  tuning?: Partial<McpConnectionTuning>
  /** Debounce of list_changed refreshes; default 250 ms. */
  debounceMs?: number
  /** Least time between two list_changed refreshes of one server; default 1000 ms. */
  refreshIntervalMs?: number
  /** Least wait before a refresh a tool list's ttlMs asks for; default TTL_REFRESH_FLOOR_MS (60 s). */
  ttlFloorMs?: number
  trust?: TrustBook // pins and scans every server's tool definitions (src/trust)
}

interface Managed {
  connection: McpConnection
  tools: McpServerTools
  /** The configuration it runs with, as JSON, to tell a changed server from an unchanged one on reload. */
  fingerprint: string
}

/** What a reconfiguration did, by server name. */
export interface McpReconfiguration {
  added: string[]
  removed: string[]
  reconnected: string[]
}

interface Opened {
  server: string
  config: McpServerConfig
  connection: McpConnection
  logger: Logger
  fingerprint: string
}

/** Any field that differs (a header, an argument, the filter) makes a server changed; a clash that starts or ends too. */
function fingerprintOf (config: McpServerConfig, clashesWith: string[] | undefined): string {
  return sortedJson([config, clashesWith ?? []])
}

type Modules = [typeof import('./connection.ts'), typeof import('./server-tools.ts')]

/** Servers whose names sanitise alike would register the same tool names: all of them stay off. */
function clashingNames (names: readonly string[]): Map<string, string[]> {
  const bySanitised = new Map<string, string[]>()
  for (const name of names) {
    const key = sanitizeNamePart(name)
    bySanitised.set(key, [...(bySanitised.get(key) ?? []), name])
  }
  const clashes = new Map<string, string[]>()
  for (const group of bySanitised.values()) {
    if (group.length > 1) for (const name of group) clashes.set(name, group.filter((other) => other !== name))
  }
  return clashes
}

export class McpManager extends EventEmitter<{ state: [McpServerStatus] }> {
  readonly #options: McpManagerOptions
  readonly #servers = new Map<string, Managed>()
  /** Connections of servers removed or replaced by a reload, closed once their calls have ended. */
  readonly #retiring = new Set<McpConnection>()
  readonly #logger: Logger
  #readiness: Promise<void> = Promise.resolve()
  #modules: Promise<Modules> | undefined
  #configs: Readonly<Record<string, McpServerConfig>>
  #started = false
  #stopped = false
  #stopping: Promise<void> | undefined

  constructor (options: McpManagerOptions) {
    super()
    this.#options = options
    this.#configs = options.servers
    this.#logger = options.logger.child({ component: 'mcp' })
  }

  /** Starts every enabled server at once and returns without waiting; see ready(). */
  start (): void {
    if (this.#started || this.#stopped) return
    this.#started = true
    if (Object.keys(this.#configs).length === 0) return
    this.#readiness = this.#connectAll().catch((err: unknown) => {
      // Only a broken install fails here (the modules did not load): the gateway serves without them.
      this.#logger.error({ err }, 'MCP servers not started: their modules failed to load')
    })
  }

  /** The connection and tool-mirroring modules, loaded once (the MCP client SDK comes with them). */
  #load (): Promise<Modules> {
    this.#modules ??= Promise.all([import('./connection.ts'), import('./server-tools.ts')])
    return this.#modules
  }

  async #connectAll (): Promise<void> {
    const modules = await this.#load()
    // stop() came while the modules loaded: nothing to start, nothing left behind.
    if (this.#stopped) return
    const servers = this.#configs
    const names = Object.keys(servers).sort()
    const clashes = clashingNames(names)
    for (const server of names) {
      this.#servers.set(server, this.#mirror(modules, this.#open(modules, server, servers[server], clashes.get(server))))
    }
    await Promise.all([...this.#servers.values()].map(({ connection }) => this.#connect(connection)))
  }

  /** A server's connection, not started. */
  #open ([{ McpConnection }]: Modules, server: string, config: McpServerConfig, clashesWith: string[] | undefined): Opened {
    const clock = this.#options.clock ?? REAL_CLOCK
    const logger = this.#logger.child({ server })
    const disabledReason = this.#clashReason(server, clashesWith, logger)
    const connection = new McpConnection({ server, config, logger, clock, tuning: this.#options.tuning, disabledReason })
    return { server, config, connection, logger, fingerprint: fingerprintOf(config, clashesWith) }
  }

  /** The mirror of a connection's tools in the registry; from now on its state changes are told. */
  #mirror ([, { McpServerTools }]: Modules, { server, config, connection, logger, fingerprint }: Opened): Managed {
    const { registry, debounceMs, refreshIntervalMs, ttlFloorMs, trust } = this.#options
    const tools = new McpServerTools({
      server,
      connection,
      registry,
      logger,
      trust,
      filter: config.tools,
      timeoutMs: connection.callTimeoutMs,
      debounceMs,
      refreshIntervalMs,
      ttlFloorMs,
      clock: this.#options.clock ?? REAL_CLOCK,
      tokenExchange: 'url' in config ? config.auth?.tokenExchange : undefined
    })
    const managed: Managed = { connection, tools, fingerprint }
    connection.on('state', () => this.emit('state', this.#status(server, managed)))
    return managed
  }

  /** Starts connecting; resolves after the first attempt or the server's connectTimeoutMs, never rejects. */
  #connect (connection: McpConnection): Promise<void> {
    if (connection.state === 'disabled') return Promise.resolve()
    return withTimeout(connection.start(), connection.connectTimeoutMs, () => undefined, { unref: true })
  }

  /** Why a server stays off because its name clashes with others' (logged), or undefined. */
  #clashReason (server: string, others: string[] | undefined, logger: Logger): string | undefined {
    if (others === undefined) return undefined
    const reason = `its name clashes with ${others.map((o) => `"${o}"`).join(', ')} once sanitised to "${sanitizeNamePart(server)}"; rename one of them`
    logger.error({ clashesWith: others }, `MCP server not started: ${reason}`)
    return reason
  }

  /** Resolves when each server has connected, failed its first attempt, or used up its connectTimeoutMs. Never rejects. */
  ready (): Promise<void> {
    return this.#readiness
  }

  /** One line per configured server, sorted by name. */
  states (): McpServerStatus[] {
    return [...this.#servers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([server, managed]) => this.#status(server, managed))
  }

  /** The connection of a server, for routes and tests. */
  connection (server: string): McpConnection | undefined {
    return this.#servers.get(server)?.connection
  }

  /** Closes every connection and waits until every child has exited. Idempotent. */
  stop (): Promise<void> {
    this.#stopped = true
    this.#stopping ??= this.#closeAll()
    return this.#stopping
  }

  /**
   * Applies a new `mcpServers` (a configuration reload): a server added is connected; one removed
   * loses its tools at once and is disconnected once `callsEnded` says its calls in flight are over;
   * one whose configuration changed in any field is connected anew with it, and its tools move to
   * the new connection only once that one has connected or used up its connectTimeoutMs (calls
   * under way finish on the old one, closed after them). Unchanged servers are not touched.
   */
  async reconfigure (servers: Readonly<Record<string, McpServerConfig>>, callsEnded: (entries: ToolEntry[]) => Promise<void>): Promise<McpReconfiguration> {
    const done: McpReconfiguration = { added: [], removed: [], reconnected: [] }
    this.#configs = servers
    // Not started yet: start() will read the new servers. Stopped: nothing to do.
    if (!this.#started || this.#stopped) return done
    await this.#readiness
    const modules = await this.#load()
    const names = Object.keys(servers).sort()
    const clashes = clashingNames(names)
    const opened: Opened[] = []
    for (const server of names) {
      const old = this.#servers.get(server)
      const candidate = fingerprintOf(servers[server], clashes.get(server))
      if (old?.fingerprint === candidate) continue
      opened.push(this.#open(modules, server, servers[server], clashes.get(server)))
      ;(old === undefined ? done.added : done.reconnected).push(server)
    }
    done.removed = [...this.#servers.keys()].filter((server) => !Object.hasOwn(servers, server)).sort()
    await Promise.all(opened.map(({ connection }) => this.#connect(connection)))
    if (this.#stopped) {
      await Promise.all(opened.map(({ connection }) => connection.close()))
      return done
    }
    for (const server of done.removed) this.#retire(this.#servers.get(server)!, callsEnded)
    for (const one of opened) {
      const old = this.#servers.get(one.server)
      if (old !== undefined) this.#retire(old, callsEnded)
      const managed = this.#mirror(modules, one)
      this.#servers.set(one.server, managed)
      // Its 'connected' came before the mirror listened: mirror what it lists now.
      if (one.connection.state === 'connected') managed.tools.apply(one.connection.tools, one.connection.leftOut)
      this.emit('state', this.#status(one.server, managed))
    }
    for (const server of done.removed) this.#servers.delete(server)
    return done
  }

  /** Removes a server's tools now and closes its connection once the calls running on them have ended. */
  #retire ({ connection, tools }: Managed, callsEnded: (entries: ToolEntry[]) => Promise<void>): void {
    const entries = [...this.#options.registry.snapshot().tools.values()]
      .filter((entry) => entry.origin.kind === 'mcp' && entry.origin.server === connection.server)
    tools.dispose()
    this.#retiring.add(connection)
    callsEnded(entries).then(() => this.#close(connection)).finally(() => this.#retiring.delete(connection)).catch(() => {})
  }

  async #close (connection: McpConnection): Promise<void> {
    try {
      await connection.close()
    } catch (err) {
      this.#logger.error({ server: connection.server, err: messageOf(err) }, 'MCP server did not close cleanly')
    }
  }

  async #closeAll (): Promise<void> {
    // The connections exist once their modules loaded; a start still loading them ends without any.
    await this.#readiness.catch(() => {})
    await Promise.all([...this.#retiring].map((connection) => this.#close(connection)))
    await Promise.all([...this.#servers.values()].map(({ connection }) => this.#close(connection)))
  }

  #status (server: string, { connection, tools }: Managed): McpServerStatus {
    return {
      server,
      toolset: tools.toolset,
      state: connection.state,
      transport: connection.transportKind,
      tools: tools.count,
      toolsLeftOut: tools.leftOut.map(({ tool, reason }) => ({ tool, reason })),
      schemaWarnings: tools.schemaWarnings.map(({ tool, warning }) => ({ tool, warning })),
      lastError: connection.lastError ?? null,
      since: new Date(connection.since).toISOString(),
      protocolVersion: connection.protocolVersion ?? null,
      protocolEra: connection.protocolEra ?? null
    }
  }
}
