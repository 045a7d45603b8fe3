// One MCP server, kept connected: a state operators can read, one link (child or HTTP session) at a
// time, reconnection when it breaks (when: ReconnectPolicy; the link itself: McpLink), the revision
// it was found to speak, kept for its reconnects (ProtocolVerdict), a health probe, and requests
// that fail with typed errors saying which failure it was.
import { EventEmitter } from 'node:events'
import type { Client, RequestOptions, ServerCapabilities, Tool } from '@modelcontextprotocol/client'
import type { Logger } from 'pino'
import type { McpServerConfig } from '../config/schema.ts'
import { McpUnavailableError } from '../shared/errors.ts'
import { callParams, sdkRequestOptions, type CallOptions } from './call-options.ts'
import { MAX_TIMER_MS } from '../shared/timers.ts'
import { REAL_CLOCK, type McpClock } from './clock.ts'
import { McpLink } from './link.ts'
import { protocolSetting, type ProtocolEra } from './protocol.ts'
import { ProtocolVerdict } from './protocol-verdict.ts'
import { ReconnectPolicy } from './reconnect-policy.ts'
import { requestFailure } from './request-errors.ts'
import { mapCallResult, type MappedResult } from './result.ts'
import { StderrLog } from './stdio-child.ts'
import { listAllTools, type LeftOutTool } from './tool-list.ts'
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_TUNING, type McpConnectionTuning } from './tuning.ts'

export type McpConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'circuit_open' | 'disabled' | 'closed'
export type McpTransportKind = 'stdio' | 'http'

export interface McpConnectionOptions {
  /** The server's name in the config. */
  server: string
  config: McpServerConfig
  logger: Logger
  clock?: McpClock
  tuning?: Partial<McpConnectionTuning>
  /** Starts disabled with this reason (e.g. a name clash found by the manager). */
  disabledReason?: string
}

/** One request to the server through the SDK client, given the SDK's options for it (deadline, signal, progress). */
export type McpRun<T> = (client: Client, request: RequestOptions) => Promise<T>

export class McpConnection extends EventEmitter<{ state: [McpConnectionState], connected: [], tools_changed: [] }> {
  readonly server: string
  readonly transportKind: McpTransportKind
  #state: McpConnectionState
  #lastError: string | undefined
  #refusedAnswers = 0
  #since = Date.now()
  #tools: readonly Tool[] = []
  #leftOut: readonly LeftOutTool[] = []
  #capabilities: ServerCapabilities = {}
  #listTtlMs: number | undefined
  #link: McpLink | undefined
  #timer: unknown
  #started = false
  #closed = false
  #firstSettled: Promise<void> = Promise.resolve()
  #attempting: Promise<void> | undefined
  #teardown: Promise<void> = Promise.resolve()
  #closing: Promise<void> | undefined
  readonly #policy: ReconnectPolicy
  readonly #verdict: ProtocolVerdict
  readonly #stderrLog: StderrLog
  readonly #config: McpServerConfig
  readonly #logger: Logger
  readonly #clock: McpClock
  readonly #tuning: McpConnectionTuning

  constructor (options: McpConnectionOptions) {
    super()
    this.server = options.server
    this.#config = options.config
    this.transportKind = 'command' in options.config ? 'stdio' : 'http'
    this.#logger = options.logger
    this.#clock = options.clock ?? REAL_CLOCK
    this.#tuning = { ...DEFAULT_TUNING, ...options.tuning }
    this.#policy = new ReconnectPolicy(this.#tuning, this.#clock)
    this.#verdict = new ProtocolVerdict(protocolSetting(options.config), this.transportKind)
    // One per server, across its children: the rate cap holds for a server that crash-loops too.
    this.#stderrLog = new StderrLog({
      logger: this.#logger,
      now: () => this.#clock.now(),
      linesPerWindow: this.#tuning.stderrLinesPerWindow,
      windowMs: this.#tuning.stderrWindowMs
    })
    const disabled = options.disabledReason ?? (options.config.enabled === false ? 'disabled in the configuration' : undefined)
    this.#state = disabled === undefined ? 'connecting' : 'disabled'
    this.#lastError = disabled
  }

  get state (): McpConnectionState { return this.#state }
  /** The last failure seen; kept after a recovery so operators can see what happened. */
  get lastError (): string | undefined { return this.#lastError }
  /** Wall-clock ms of the last state change. */
  get since (): number { return this.#since }
  get consecutiveFailures (): number { return this.#policy.failures }
  /** Answers of the server refused or dropped since the gateway started (another request's, over the cap): a server to distrust. */
  get refusedAnswers (): number { return this.#refusedAnswers }
  /** The tools the server listed last (raw MCP definitions). */
  get tools (): readonly Tool[] { return this.#tools }
  /** Entries of that list that are not tools at all (no name, not an object), with the reason. */
  get leftOut (): readonly LeftOutTool[] { return this.#leftOut }
  get capabilities (): ServerCapabilities { return this.#capabilities }
  /** The MCP revision spoken (e.g. 2026-07-28, 2025-11-25) while connected; undefined otherwise. */
  get protocolVersion (): string | undefined { return this.#state === 'connected' ? this.#link?.protocolVersion : undefined }
  /** Its era: modern (2026-07-28 and later) or legacy (the 2025 initialize handshake); undefined while not connected. */
  get protocolEra (): ProtocolEra | undefined { return this.#state === 'connected' ? this.#link?.protocolEra : undefined }
  /** How long the server said its last tool list stays fresh (2026-07-28 ttlMs); undefined when it did not say. */
  get listTtlMs (): number | undefined { return this.#listTtlMs }
  /** The current child's pid (stdio only). */
  get pid (): number | undefined { return this.#link?.pid }
  /** The session the server gave (Streamable HTTP servers that keep sessions), while connected. */
  get sessionId (): string | undefined { return this.#link?.sessionId }
  get callTimeoutMs (): number { return this.#config.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS }
  get connectTimeoutMs (): number { return this.#config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS }

  /** Why calls cannot run now, for errors and availability reasons. */
  describe (): string {
    let state: string = this.#state
    if (this.#state === 'circuit_open') {
      state = `circuit open after ${this.#policy.failures} consecutive failures (next attempt in ${this.#policy.secondsToNextAttempt()} s)`
    }
    return `MCP server "${this.server}" is ${state}${this.#lastError ? `: ${this.#lastError}` : ''}`
  }

  /** Starts connecting; resolves once the first attempt has succeeded or failed (never rejects). */
  start (): Promise<void> {
    if (this.#started || this.#state === 'disabled' || this.#closed) return this.#firstSettled
    this.#started = true
    this.#setState('connecting')
    this.#firstSettled = this.#attempting = this.#attempt()
    return this.#firstSettled
  }

  /** Every page of tools/list; also updates `tools`. */
  async listTools (options: CallOptions = {}): Promise<Tool[]> {
    const { tools, leftOut, ttlMs } = await this.request('tools/list', listAllTools, options)
    this.#tools = tools
    this.#leftOut = leftOut
    this.#listTtlMs = ttlMs
    return tools
  }

  async callTool (name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<MappedResult> {
    const params = callParams(name, args, options)
    const result = await this.request(`tools/call "${name}"`, (client, request) => client.callTool(params, request), options)
    return mapCallResult(result)
  }

  /** Stops for good: timers cleared, the child terminated (SIGTERM, then SIGKILL) and reaped. */
  close (): Promise<void> {
    if (this.#closing) return this.#closing
    this.#closed = true
    this.#clock.clearTimeout(this.#timer)
    this.#timer = undefined
    const link = this.#link
    this.#link = undefined
    if (this.#state !== 'disabled') this.#setState('closed')
    this.#closing = (async () => {
      if (link) await link.terminate(true)
      await this.#teardown
      await this.#attempting
    })()
    return this.#closing
  }

  // ---- connecting ----

  async #attempt (): Promise<void> {
    this.#timer = undefined
    this.#policy.attemptStarted()
    // Never two children at once: the previous one is reaped before the next is spawned.
    await this.#teardown
    if (this.#closed) return
    const link = this.#newLink()
    this.#link = link
    const prior = this.#verdict.prior(this.#clock.now())
    try {
      const { tools, capabilities } = await link.connect(this.connectTimeoutMs, prior)
      if (this.#closed || this.#link !== link) throw new McpUnavailableError(this.server, 'closed while connecting')
      ;({ tools: this.#tools, leftOut: this.#leftOut, ttlMs: this.#listTtlMs } = tools)
      this.#capabilities = capabilities
    } catch (err) {
      if (this.#link === link) this.#link = undefined
      const reason = link.explain(err)
      await link.terminate(false)
      if (this.#closed) return
      // A stale verdict (the server was upgraded or replaced) is forgotten and the server asked
      // again at once, with no failure counted; the next attempt holds no verdict: this happens once.
      if (prior !== undefined && this.#verdict.disproved(err)) {
        this.#logger.info({ err: reason, verdict: prior.kind }, 'MCP server did not answer as its kept protocol verdict said; negotiating again')
        return this.#attempt()
      }
      this.#logger.warn({ err: reason, attempt: this.#policy.failures + 1 }, 'MCP server connection attempt failed')
      this.#afterFailure(reason, true)
      return
    }
    link.connectedAt = this.#clock.now()
    this.#verdict.learn(link.client, this.#clock.now())
    this.#policy.connected()
    this.#logger.info({ tools: this.#tools.length, pid: link.pid, protocolVersion: link.protocolVersion, negotiated: prior === undefined }, 'MCP server connected')
    // Tools are registered first, so whoever hears "connected" finds them in the registry.
    // Outside the try: a listener that throws must not be taken for a failed connection.
    this.#emitSafely('connected')
    this.#setState('connected')
    link.keepAlive()
  }

  #newLink (): McpLink {
    const link: McpLink = new McpLink({
      server: this.server,
      config: this.#config,
      logger: this.#logger,
      stderrLog: this.#stderrLog,
      tuning: this.#tuning,
      clock: this.#clock,
      onLost: (why) => this.#lost(link, why),
      onToolsChanged: () => {
        if (this.#link === link && this.#state === 'connected') this.#emitSafely('tools_changed')
      },
      // Operators see it in /tools beside the state; the connection itself stays up.
      onRefused: (reason) => { this.#lastError = `an answer was refused: ${reason}`; this.#refusedAnswers++ },
      onRediscovered: (discover) => { if (this.#link === link) this.#verdict.rediscovered(discover, this.#clock.now()) }
    })
    return link
  }

  // ---- failures ----

  /** The connected link broke: calls fail fast from now on, and a reconnection is scheduled. */
  #lost (link: McpLink, reason: string): void {
    if (this.#link !== link || this.#state !== 'connected' || this.#closed) return
    this.#link = undefined
    const lived = this.#clock.now() - (link.connectedAt ?? this.#clock.now())
    this.#teardown = link.terminate(false)
    this.#logger.warn({ err: reason, livedMs: Math.round(lived) }, 'MCP server connection lost')
    this.#afterFailure(reason, this.#policy.lossCounts(lived))
  }

  #afterFailure (reason: string, counts: boolean): void {
    this.#lastError = reason
    const plan = this.#policy.failed(counts)
    this.#clock.clearTimeout(this.#timer)
    this.#timer = this.#clock.setTimeout(() => {
      if (this.#closed) return
      // Leaving circuit_open: this is the one half-open probe; a failure opens the circuit again.
      this.#setState('reconnecting')
      this.#attempting = this.#attempt()
    }, plan.delayMs)
    this.#setState(plan.state)
    if (plan.state === 'circuit_open') {
      this.#logger.error({ failures: this.#policy.failures, openMs: plan.delayMs, err: reason }, 'MCP server circuit open')
    }
  }

  /** A deadline hit may mean a hung server: the link checks it still answers. */
  #checkLiveness (link: McpLink, after: string): void {
    if (this.#link === link && this.#state === 'connected') link.checkAlive(after)
  }

  // ---- requests ----

  /**
   * Runs one request on the connected link: fails fast while not connected, and turns a failure
   * into the typed error saying which it was (resources and prompts: utility-tools.ts). `label`
   * names the request in messages (`resources/read`).
   */
  async request<T> (label: string, run: McpRun<T>, options: CallOptions = {}): Promise<T> {
    const link = this.#link
    if (this.#state !== 'connected' || link === undefined) throw new McpUnavailableError(this.server, this.describe())
    const { signal } = options
    const timeoutMs = Math.min(options.timeoutMs ?? (signal ? MAX_TIMER_MS : this.callTimeoutMs), MAX_TIMER_MS)
    // Traced to its call (for the server's own requests on its way), and not in flight once over.
    const route = link.attribution.begin(options.asker)
    try {
      return await run(link.client, sdkRequestOptions(options, timeoutMs, route.headers))
    } catch (err) {
      const failure = requestFailure({ server: this.server, label, timeoutMs, signal }, err)
      if (failure.suspect === true) this.#checkLiveness(link, `${label} timed out`)
      if (failure.lost !== undefined) this.#lost(link, failure.lost)
      throw failure.error
    } finally {
      route.end()
    }
  }

  #setState (state: McpConnectionState): void {
    if (this.#state === state) return
    this.#state = state
    this.#since = Date.now()
    this.#logger.debug({ state, lastError: this.#lastError }, 'MCP server state')
    this.#emitSafely('state', state)
  }

  #emitSafely (...event: ['state', McpConnectionState] | ['connected'] | ['tools_changed']): void {
    try {
      (this.emit as (...args: unknown[]) => boolean)(...event)
    } catch (err) {
      this.#logger.error({ err, event: event[0] }, 'MCP connection listener threw')
    }
  }
}
