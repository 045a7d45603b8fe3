// Every configured MCP server: connected in parallel at start, bounded readiness so a down server
// never holds up the gateway, the state of each for operators, and a stop that reaps every child.
import { EventEmitter } from 'node:events'
import type { Logger } from 'pino'
import type { McpServerConfig } from '../config/schema.ts'
import { messageOf } from '../objects.ts'
import type { ToolRegistry } from '../registry/registry.ts'
import { REAL_CLOCK, type McpClock } from './clock.ts'
import { McpConnection, type McpConnectionState, type McpTransportKind } from './connection.ts'
import { sanitizeNamePart } from './naming.ts'
import type { McpConnectionTuning } from './tuning.ts'
import { McpServerTools } from './server-tools.ts'
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
  readonly #servers = new Map<string, Managed>()
  readonly #logger: Logger
  #readiness: Promise<void> = Promise.resolve()
  #started = false
  #stopping: Promise<void> | undefined

  constructor (options: McpManagerOptions) {
    super()
    this.#logger = options.logger.child({ component: 'mcp' })
    const clock = options.clock ?? REAL_CLOCK
    const names = Object.keys(options.servers).sort()
    const clashes = clashingNames(names)
    for (const server of names) {
      const config = options.servers[server]
      const logger = this.#logger.child({ server })
      const others = clashes.get(server)
      let disabledReason: string | undefined
      if (others !== undefined) {
        disabledReason = `its name clashes with ${others.map((o) => `"${o}"`).join(', ')} once sanitised to "${sanitizeNamePart(server)}"; rename one of them`
        logger.error({ clashesWith: others }, `MCP server not started: ${disabledReason}`)
      }
      const connection = new McpConnection({ server, config, logger, clock, tuning: options.tuning, disabledReason })
      const tools = new McpServerTools({
        server,
        connection,
        registry: options.registry,
        logger,
        filter: config.tools,
        timeoutMs: connection.callTimeoutMs,
        debounceMs: options.debounceMs,
        refreshIntervalMs: options.refreshIntervalMs,
        clock
      })
      connection.on('state', () => this.emit('state', this.#status(server, { connection, tools })))
      this.#servers.set(server, { connection, tools })
    }
  }

  /** Starts every enabled server at once and returns without waiting; see ready(). */
  start (): void {
    if (this.#started) return
    this.#started = true
    const waits = [...this.#servers.values()].map(({ connection }) => {
      if (connection.state === 'disabled') return Promise.resolve()
      return withTimeout(connection.start(), connection.connectTimeoutMs, () => undefined, { unref: true })
    })
    this.#readiness = Promise.all(waits).then(() => undefined)
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
    this.#stopping ??= Promise.all([...this.#servers.values()].map(async ({ connection }) => {
      try {
        await connection.close()
      } catch (err) {
        this.#logger.error({ server: connection.server, err: messageOf(err) }, 'MCP server did not close cleanly')
      }
    })).then(() => undefined)
    return this.#stopping
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
