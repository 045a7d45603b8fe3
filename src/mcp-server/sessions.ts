// MCP sessions kept in memory, bounded so that no caller can take them all: in number, in all and
// per caller (past either bound clients are served statelessly); closed after an idle time (no
// request, and none still open) and after a maximum lifetime whatever they do; closed all together
// on shutdown, and those of a key a reload revoked; told when the tools change. Their notification
// streams (GET /mcp) count against the caller's streams (stream-quota.ts).
import type { Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'
import type { Logger } from 'pino'
import type { Principal } from '../access/principal.ts'
import type { StreamQuota } from './stream-quota.ts'

export interface McpSession {
  readonly id: string
  /** The API key's name that opened it: another key cannot use it, or even learn it exists. */
  readonly owner: string
  /** The key that opened it, to close the session when a reload revokes it; undefined on an open gateway. */
  readonly principal: Principal | undefined
  /** What its caps count it against: the key, else the client address (as the in-flight limits). */
  readonly caller: string
  readonly server: Server
  readonly transport: WebStandardStreamableHTTPServerTransport
  readonly openedAt: number
  lastSeen: number
  /** Requests of the session still open (a long call, the GET notification stream): not idle. */
  busy: number
}

export interface SessionStoreOptions {
  maxSessions: number
  maxSessionsPerKey: number
  idleMs: number
  maxLifetimeMs: number
  streams: StreamQuota
  logger: Pick<Logger, 'info' | 'debug'>
  now?: () => number
}

/** Counts per caller, forgetting a caller at zero so the map holds only callers with something open. */
class PerCaller {
  readonly #counts = new Map<string, number>()

  of (caller: string): number {
    return this.#counts.get(caller) ?? 0
  }

  add (caller: string, by: 1 | -1): void {
    const next = this.of(caller) + by
    if (next <= 0) this.#counts.delete(caller)
    else this.#counts.set(caller, next)
  }
}

export class SessionStore {
  readonly #sessions = new Map<string, McpSession>()
  readonly #sessionsOf = new PerCaller()
  readonly #options: SessionStoreOptions
  readonly #now: () => number
  readonly #sweeper: NodeJS.Timeout

  constructor (options: SessionStoreOptions) {
    this.#options = options
    this.#now = options.now ?? Date.now
    // A quarter of the shorter time between sweeps: a session lives at most 1.25 × idleMs unused.
    const every = Math.min(options.idleMs, options.maxLifetimeMs) / 4
    this.#sweeper = setInterval(() => { this.sweep() }, Math.max(1000, Math.floor(every)))
    this.#sweeper.unref()
  }

  get size (): number {
    return this.#sessions.size
  }

  /** Whether `caller` may open one more session: room in all, and under its own share. */
  hasRoom (caller: string): boolean {
    return this.#sessions.size < this.#options.maxSessions && this.#sessionsOf.of(caller) < this.#options.maxSessionsPerKey
  }

  add (session: McpSession): void {
    this.#sessions.set(session.id, session)
    this.#sessionsOf.add(session.caller, 1)
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

  /**
   * Counts a notification stream of the session open until `response` closes, ended after its
   * lifetime; or says why the caller may not open one more (nothing counted then).
   */
  openStream (session: McpSession, response: NodeJS.EventEmitter): string | undefined {
    // The SDK keeps one stream per session: closing it ends this one, and the client reconnects.
    return this.#options.streams.open(session.caller, session.principal, response, () => { session.transport.closeStandaloneSSEStream() })
  }

  /** Forgets a session its transport closed (DELETE, or closed here). */
  forget (id: string): void {
    const session = this.#sessions.get(id)
    if (session === undefined) return
    this.#sessions.delete(id)
    this.#sessionsOf.add(session.caller, -1)
  }

  async close (session: McpSession): Promise<void> {
    this.forget(session.id)
    await session.server.close().catch(() => {})
  }

  /** Closes the sessions unused for longer than the idle time, and those past their lifetime. */
  sweep (): void {
    const now = this.#now()
    for (const session of [...this.#sessions.values()]) {
      const expired = now - session.openedAt >= this.#options.maxLifetimeMs
      if (!expired && (session.busy > 0 || session.lastSeen > now - this.#options.idleMs)) continue
      this.#options.logger.info({ mcpSession: session.id }, expired ? 'MCP session closed: past its lifetime (mcp.sessionMaxMs)' : 'MCP session closed: idle')
      this.close(session).catch(() => {})
    }
  }

  /** Closes the sessions whose key `stillValid` refuses (a reload removed or changed it): their streams end. */
  closeRevoked (stillValid: (principal: Principal) => boolean): void {
    for (const session of [...this.#sessions.values()]) {
      if (session.principal === undefined || stillValid(session.principal)) continue
      this.#options.logger.info({ mcpSession: session.id, key: session.owner }, 'MCP session closed: its key was revoked')
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
