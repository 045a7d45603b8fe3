// MCP sessions kept in memory: bounded in number (past the bound clients are served statelessly),
// closed after an idle time (no request, and none still open), closed all together on shutdown,
// and told when the tools change.
import type { Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'
import type { Logger } from 'pino'

export interface McpSession {
  readonly id: string
  /** The API key's name that opened it: another key cannot use it, or even learn it exists. */
  readonly owner: string
  readonly server: Server
  readonly transport: WebStandardStreamableHTTPServerTransport
  lastSeen: number
  /** Requests of the session still open (a long call, the GET notification stream): not idle. */
  busy: number
}

export interface SessionStoreOptions {
  maxSessions: number
  idleMs: number
  logger: Pick<Logger, 'info' | 'debug'>
  now?: () => number
}

export class SessionStore {
  readonly #sessions = new Map<string, McpSession>()
  readonly #options: SessionStoreOptions
  readonly #now: () => number
  readonly #sweeper: NodeJS.Timeout

  constructor (options: SessionStoreOptions) {
    this.#options = options
    this.#now = options.now ?? Date.now
    // A quarter of the idle time between sweeps: a session lives at most 1.25 × idleMs unused.
    this.#sweeper = setInterval(() => { this.sweep() }, Math.max(1000, Math.floor(options.idleMs / 4)))
    this.#sweeper.unref()
  }

  get size (): number {
    return this.#sessions.size
  }

  hasRoom (): boolean {
    return this.#sessions.size < this.#options.maxSessions
  }

  add (session: McpSession): void {
    this.#sessions.set(session.id, session)
  }

  /** The session, when it exists and belongs to `owner`; marks it used. */
  get (id: string, owner: string): McpSession | undefined {
    const session = this.#sessions.get(id)
    if (session === undefined || session.owner !== owner) return undefined
    session.lastSeen = this.#now()
    return session
  }

  /**
   * Counts the session busy while `response` is open: a client listening on its GET stream, or
   * waiting for a long call, is not idle. Idle time counts again from the moment it closes.
   */
  busyUntilClosed (session: McpSession, response: NodeJS.EventEmitter): void {
    session.busy++
    response.once('close', () => {
      session.busy--
      session.lastSeen = this.#now()
    })
  }

  /** Forgets a session its transport closed (DELETE, or closed here). */
  forget (id: string): void {
    this.#sessions.delete(id)
  }

  async close (session: McpSession): Promise<void> {
    this.#sessions.delete(session.id)
    await session.server.close().catch(() => {})
  }

  /** Closes the sessions unused for longer than the idle time. */
  sweep (): void {
    const oldest = this.#now() - this.#options.idleMs
    for (const session of [...this.#sessions.values()]) {
      if (session.busy > 0 || session.lastSeen > oldest) continue
      this.#options.logger.info({ mcpSession: session.id }, 'MCP session closed: idle')
      this.close(session).catch(() => {})
    }
  }

  /** Tells every session its tool list changed; a client without an open stream misses it, harmlessly. */
  toolsChanged (): void {
    for (const session of this.#sessions.values()) {
      session.server.sendToolListChanged().catch((err: unknown) => {
        this.#options.logger.debug({ err, mcpSession: session.id }, 'tools/list_changed not delivered')
      })
    }
  }

  /** Closes every session (shutdown): their streams end, so their connections can close. */
  async closeAll (): Promise<void> {
    clearInterval(this.#sweeper)
    await Promise.all([...this.#sessions.values()].map(async (session) => await this.close(session)))
  }
}
