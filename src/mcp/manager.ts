// Every configured MCP server: connected in parallel at start, bounded readiness so a down server
// never holds up the gateway, the state of each for operators, and a stop that reaps every child.
// The connections, and with them the MCP client SDK, load in start() and only when a server is
// configured: a gateway without MCP servers never loads the SDK.
import { EventEmitter } from 'node:events'
import type { Logger } from 'pino'
import type { McpServerConfig } from '../config/schema.ts'
import { messageOf } from '../objects.ts'
import type { ToolRegistry } from '../registry/registry.ts'
import { REAL_CLOCK, type McpClock } from './clock.ts'
import type { McpConnection, McpConnectionState, McpTransportKind } from './connection.ts'
import { sanitizeNamePart } from './naming.ts'
import type { McpConnectionTuning } from './tuning.ts'
import type { McpServerTools } from './server-tools.ts'
import { withTimeout } from '../timers.ts'

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
}

interface Managed {
  connection: McpConnection
  tools: McpServerTools
}

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
  readonly #logger: Logger
  #readiness: Promise<void> = Promise.resolve()
  #started = false
  #stopped = false
  #stopping: Promise<void> | undefined

  constructor (options: McpManagerOptions) {
    super()
    this.#options = options
    this.#logger = options.logger.child({ component: 'mcp' })
  }

  /** Starts every enabled server at once and returns without waiting; see ready(). */
  start (): void {
    if (this.#started || this.#stopped) return
    this.#started = true
    if (Object.keys(this.#options.servers).length === 0) return
    this.#readiness = this.#connectAll().catch((err: unknown) => {
      // Only a broken install fails here (the modules did not load): the gateway serves without them.
      this.#logger.error({ err }, 'MCP servers not started: their modules failed to load')
    })
  }

  async #connectAll (): Promise<void> {
    const [{ McpConnection }, { McpServerTools }] = await Promise.all([import('./connection.ts'), import('./server-tools.ts')])
    // stop() came while the modules loaded: nothing to start, nothing left behind.
    if (this.#stopped) return
    const { servers, registry, tuning, debounceMs, refreshIntervalMs } = this.#options
    const clock = this.#options.clock ?? REAL_CLOCK
    const names = Object.keys(servers).sort()
    const clashes = clashingNames(names)
    for (const server of names) {
      const config = servers[server]
      const logger = this.#logger.child({ server })
      const disabledReason = this.#clashReason(server, clashes.get(server), logger)
      const connection = new McpConnection({ server, config, logger, clock, tuning, disabledReason })
      const tools = new McpServerTools({
        server, connection, registry, logger, filter: config.tools, timeoutMs: connection.callTimeoutMs, debounceMs, refreshIntervalMs, clock
      })
      connection.on('state', () => this.emit('state', this.#status(server, { connection, tools })))
      this.#servers.set(server, { connection, tools })
    }
    await Promise.all([...this.#servers.values()].map(({ connection }) => {
      if (connection.state === 'disabled') return Promise.resolve()
      return withTimeout(connection.start(), connection.connectTimeoutMs, () => undefined, { unref: true })
    }))
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
    return [...this.#servers].map(([server, managed]) => this.#status(server, managed))
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

  async #closeAll (): Promise<void> {
    // The connections exist once their modules loaded; a start still loading them ends without any.
    await this.#readiness.catch(() => {})
    await Promise.all([...this.#servers.values()].map(async ({ connection }) => {
      try {
        await connection.close()
      } catch (err) {
        this.#logger.error({ server: connection.server, err: messageOf(err) }, 'MCP server did not close cleanly')
      }
    }))
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
      since: new Date(connection.since).toISOString()
    }
  }
}
