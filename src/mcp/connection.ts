// One MCP server, kept connected: the SDK client over stdio or Streamable HTTP, a state operators
// can read, reconnection with exponential back-off and jitter, a circuit breaker against restart
// storms, and children that are always reaped (the old one is gone before a new one starts).
import type { ChildProcess } from 'node:child_process'
import { EventEmitter, once } from 'node:events'
import { performance } from 'node:perf_hooks'
import type { Readable } from 'node:stream'
import {
  Client, ProtocolError, SdkError, SdkErrorCode, SdkHttpError, StreamableHTTPClientTransport,
  type GetPromptResult, type ListPromptsResult, type ListResourceTemplatesResult, type ListResourcesResult,
  type ReadResourceResult, type RequestOptions, type ServerCapabilities, type Tool
} from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import type { Logger } from 'pino'
import type { McpServerConfig } from '../config/schema.ts'
import { mapCallResult, type MappedResult } from './result.ts'
import { childEnvironment, childOf, isRunning, StderrLog } from './stdio-child.ts'
import { withTimeout } from '../timers.ts'

export type McpConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'circuit_open' | 'disabled' | 'closed'
export type McpTransportKind = 'stdio' | 'http'

/** Time and chance, injectable so back-off and the circuit breaker can be tested without waiting. */
export interface McpClock {
  /** Monotonic ms. */
  now: () => number
  setTimeout: (fn: () => void, ms: number) => unknown
  clearTimeout: (handle: unknown) => void
  /** In [0, 1). */
  random: () => number
}

export const REAL_CLOCK: McpClock = Object.freeze({
  now: () => performance.now(),
  setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle: unknown) => clearTimeout(handle as NodeJS.Timeout),
  random: () => Math.random()
})

export interface McpConnectionTuning {
  /** First reconnection delay; doubles per consecutive failure. */
  backoffBaseMs: number
  backoffMaxMs: number
  /** ± this fraction of the delay, so many gateways do not reconnect in step. */
  jitter: number
  /** Consecutive failures that open the circuit. */
  failureThreshold: number
  /** How long the circuit stays open before one half-open probe. */
  circuitOpenMs: number
  /** A connection that dies sooner than this after connecting counts as a failure (a crash loop is a restart storm too); 0 = never. */
  stableMs: number
  /** Health ping while connected; 0 = none. */
  pingIntervalMs: number
  /** A server that does not answer a ping this fast is treated as gone. */
  pingTimeoutMs: number
  /** SIGTERM, then SIGKILL after this long. */
  killGraceMs: number
  /** Child stderr lines logged per window; the rest are counted, not logged. */
  stderrLinesPerWindow: number
  stderrWindowMs: number
}

export const DEFAULT_TUNING: Readonly<McpConnectionTuning> = Object.freeze({
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
  jitter: 0.2,
  failureThreshold: 3,
  circuitOpenMs: 60_000,
  stableMs: 10_000,
  pingIntervalMs: 30_000,
  pingTimeoutMs: 5_000,
  killGraceMs: 2_000,
  stderrLinesPerWindow: 200,
  stderrWindowMs: 10_000
})

export const DEFAULT_CALL_TIMEOUT_MS = 60_000
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000
// setTimeout fires at once for delays above 2^31 - 1 ms.
const MAX_TIMER_MS = 2_147_483_647

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

export interface CallOptions {
  /** Aborting sends the server `notifications/cancelled` and rejects at once. */
  signal?: AbortSignal
  /** Default: none when a signal is given (the caller owns the deadline), else the server's timeoutMs. */
  timeoutMs?: number
}

/** One spawned child or HTTP session, from its first byte to its reaping. */
interface Link {
  readonly client: Client
  readonly transport: StdioClientTransport | StreamableHTTPClientTransport
  /** The spawned process (stdio), kept so it is signalled through its handle, never by a pid that may be reused. */
  child?: ChildProcess
  pid?: number
  connectedAt?: number
  pinging: boolean
  stderr?: StderrLog
  terminated?: Promise<void>
}

function message (err: unknown): string {
  if (err instanceof Error) return err.message || err.name
  return String(err)
}

/** The connection itself failed (as opposed to the server answering with an error). */
function isConnectionLoss (err: unknown): boolean {
  if (err instanceof SdkHttpError) return err.status === 404 || err.status >= 500
  if (err instanceof SdkError) {
    return err.code === SdkErrorCode.ConnectionClosed || err.code === SdkErrorCode.NotConnected || err.code === SdkErrorCode.SendFailed
  }
  // undici: "fetch failed" with ECONNREFUSED / ECONNRESET as the cause.
  return err instanceof TypeError && /fetch failed|terminated/i.test(err.message)
}

function isTimeout (err: unknown): boolean {
  return err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout
}

/** Resolves true if `promise` settles within `ms` (real time: children die in real time). */
function within (promise: Promise<unknown>, ms: number): Promise<boolean> {
  return withTimeout(promise.then(() => true, () => true), ms, () => false, { unref: true })
}

// Output schemas are not checked here (the model reads the result either way), so none of a
// server's schemas is ever compiled into code by the client.
const NO_OUTPUT_VALIDATION = {
  getValidator: () => (input: unknown) => ({ valid: true as const, data: input as never, errorMessage: undefined })
}

export class McpConnection extends EventEmitter<{ state: [McpConnectionState], connected: [], tools_changed: [] }> {
  readonly server: string
  readonly transportKind: McpTransportKind
  #state: McpConnectionState
  #lastError: string | undefined
  #since = Date.now()
  #failures = 0
  #nextAttemptAt: number | undefined
  #tools: readonly Tool[] = []
  #capabilities: ServerCapabilities = {}
  #link: Link | undefined
  #timer: unknown
  #pingTimer: unknown
  #started = false
  #closed = false
  #firstSettled: Promise<void> = Promise.resolve()
  #attempting: Promise<void> | undefined
  #teardown: Promise<void> = Promise.resolve()
  #closing: Promise<void> | undefined
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
  get consecutiveFailures (): number { return this.#failures }
  /** The tools the server listed last (raw MCP definitions). */
  get tools (): readonly Tool[] { return this.#tools }
  get capabilities (): ServerCapabilities { return this.#capabilities }
  /** The current child's pid (stdio only). */
  get pid (): number | undefined { return this.#link?.pid }
  get callTimeoutMs (): number { return this.#config.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS }
  get connectTimeoutMs (): number { return this.#config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS }

  /** Why calls cannot run now, for errors and availability reasons. */
  describe (): string {
    let state: string = this.#state
    if (this.#state === 'circuit_open') {
      const wait = Math.max(0, Math.ceil(((this.#nextAttemptAt ?? this.#clock.now()) - this.#clock.now()) / 1000))
      state = `circuit open after ${this.#failures} consecutive failures (next attempt in ${wait} s)`
    }
    return `MCP server "${this.server}" is ${state}${this.#lastError ? `: ${this.#lastError}` : ''}`
  }

  /** Starts connecting; resolves once the first attempt has succeeded or failed (never rejects). */
  start (): Promise<void> {
    if (this.#started || this.#state === 'disabled' || this.#closed) return this.#firstSettled
    this.#started = true
    this.#setState('connecting')
    this.#firstSettled = this.#runAttempt()
    return this.#firstSettled
  }

  /** Every page of tools/list; also updates `tools`. */
  async listTools (options: CallOptions = {}): Promise<Tool[]> {
    const tools = await this.#request('tools/list', (client, request) => this.#listAllTools(client, request), options)
    this.#tools = tools
    return tools
  }

  async callTool (name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<MappedResult> {
    const result = await this.#request(`tools/call "${name}"`, (client, request) => client.callTool({ name, arguments: args }, request), options)
    return mapCallResult(result)
  }

  listResources (options: CallOptions = {}): Promise<ListResourcesResult> {
    return this.#request('resources/list', (client, request) => client.listResources(undefined, request), options)
  }

  listResourceTemplates (options: CallOptions = {}): Promise<ListResourceTemplatesResult> {
    return this.#request('resources/templates/list', (client, request) => client.listResourceTemplates(undefined, request), options)
  }

  readResource (uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    return this.#request('resources/read', (client, request) => client.readResource({ uri }, request), options)
  }

  listPrompts (options: CallOptions = {}): Promise<ListPromptsResult> {
    return this.#request('prompts/list', (client, request) => client.listPrompts(undefined, request), options)
  }

  getPrompt (name: string, args: Record<string, string>, options: CallOptions = {}): Promise<GetPromptResult> {
    return this.#request(`prompts/get "${name}"`, (client, request) => client.getPrompt({ name, arguments: args }, request), options)
  }

  /** Stops for good: timers cleared, the child terminated (SIGTERM, then SIGKILL) and reaped. */
  close (): Promise<void> {
    if (this.#closing) return this.#closing
    this.#closed = true
    this.#clearTimers()
    const link = this.#link
    this.#link = undefined
    if (this.#state !== 'disabled') this.#setState('closed')
    this.#closing = (async () => {
      if (link) await this.#terminate(link, true)
      await this.#teardown
      await this.#attempting
    })()
    return this.#closing
  }

  // ---- connecting ----

  #runAttempt (): Promise<void> {
    const attempt = this.#attempt()
    this.#attempting = attempt
    return attempt
  }

  async #attempt (): Promise<void> {
    this.#timer = undefined
    this.#nextAttemptAt = undefined
    // Never two children at once: the previous one is reaped before the next is spawned.
    await this.#teardown
    if (this.#closed) return
    const link = this.#newLink()
    this.#link = link
    try {
      await link.client.connect(link.transport, { timeout: this.connectTimeoutMs })
      link.child = childOf(link.transport)
      link.pid = link.child?.pid
      const capabilities = link.client.getServerCapabilities() ?? {}
      const tools = capabilities.tools ? await this.#listAllTools(link.client, { timeout: this.connectTimeoutMs }) : []
      if (this.#closed || this.#link !== link) throw new Error('closed while connecting')
      this.#tools = tools
      this.#capabilities = capabilities
    } catch (err) {
      if (this.#link === link) this.#link = undefined
      link.child ??= childOf(link.transport)
      const reason = this.#explain(link, err)
      await this.#terminate(link, false)
      if (this.#closed) return
      this.#logger.warn({ err: reason, attempt: this.#failures + 1 }, 'MCP server connection attempt failed')
      this.#afterFailure(reason, true)
      return
    }
    link.connectedAt = this.#clock.now()
    // With stability tracking off, connecting is success enough; otherwise the loss decides (see #lost).
    if (this.#tuning.stableMs === 0) this.#failures = 0
    this.#logger.info({ tools: this.#tools.length, pid: link.pid }, 'MCP server connected')
    // Tools are registered first, so whoever hears "connected" finds them in the registry.
    // Outside the try: a listener that throws must not be taken for a failed connection.
    this.#emitSafely('connected')
    this.#setState('connected')
    this.#schedulePing(link)
  }

  #newLink (): Link {
    const transport = this.#createTransport()
    const client = new Client({ name: 'tool-gateway', version: '0.1.0' }, { capabilities: {}, jsonSchemaValidator: NO_OUTPUT_VALIDATION })
    const link: Link = { client, transport, pinging: false }
    // Set before connect: the client chains its own handler after this one.
    transport.onclose = () => {
      const why = transport instanceof StdioClientTransport
        ? `the server process exited${link.stderr?.lastLine ? ` (last stderr line: ${link.stderr.lastLine})` : ''}`
        : 'the server closed the connection'
      this.#lost(link, why)
    }
    transport.onerror = (err) => this.#logger.debug({ err: message(err) }, 'MCP transport error')
    client.onerror = (err) => this.#logger.debug({ err: message(err) }, 'MCP client error')
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      if (this.#link === link && this.#state === 'connected') this.#emitSafely('tools_changed')
    })
    if (transport instanceof StdioClientTransport && transport.stderr) {
      link.stderr = this.#stderrLog
      this.#stderrLog.lastLine = undefined
      this.#stderrLog.follow(transport.stderr as Readable, () => link.pid ?? childOf(transport)?.pid)
    }
    return link
  }

  #createTransport (): StdioClientTransport | StreamableHTTPClientTransport {
    const config = this.#config
    if ('command' in config) {
      return new StdioClientTransport({
        command: config.command,
        args: config.args ?? [],
        env: childEnvironment(config.env),
        cwd: config.cwd,
        stderr: 'pipe'
      })
    }
    return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: { ...config.headers } } })
  }

  async #listAllTools (client: Client, request: RequestOptions): Promise<Tool[]> {
    // Without a cursor the SDK walks every page (capped at 64 pages against a server that never converges).
    const { tools } = await client.listTools(undefined, request)
    return Array.isArray(tools) ? tools : []
  }

  #explain (link: Link, err: unknown): string {
    const base = message(err)
    const last = link.stderr?.lastLine
    return last && !base.includes(last) ? `${base} (last stderr line: ${last})` : base
  }

  // ---- failures ----

  /** The connected link broke: calls fail fast from now on, and a reconnection is scheduled. */
  #lost (link: Link, reason: string): void {
    if (this.#link !== link || this.#state !== 'connected' || this.#closed) return
    this.#link = undefined
    this.#clock.clearTimeout(this.#pingTimer)
    const lived = this.#clock.now() - (link.connectedAt ?? this.#clock.now())
    this.#teardown = this.#terminate(link, false)
    this.#logger.warn({ err: reason, livedMs: Math.round(lived) }, 'MCP server connection lost')
    this.#afterFailure(reason, this.#tuning.stableMs > 0 && lived < this.#tuning.stableMs)
  }

  #afterFailure (reason: string, counts: boolean): void {
    this.#lastError = reason
    this.#failures = counts ? this.#failures + 1 : 0
    if (this.#failures >= this.#tuning.failureThreshold) {
      this.#schedule(this.#tuning.circuitOpenMs)
      this.#setState('circuit_open')
      this.#logger.error({ failures: this.#failures, openMs: this.#tuning.circuitOpenMs, err: reason }, 'MCP server circuit open')
      return
    }
    this.#schedule(this.#backoff(this.#failures))
    this.#setState('reconnecting')
  }

  /** base × 2^(n-1), capped, ± jitter; the first retry after a long-lived connection waits `base`. */
  #backoff (failures: number): number {
    const { backoffBaseMs, backoffMaxMs, jitter } = this.#tuning
    const raw = Math.min(backoffMaxMs, backoffBaseMs * 2 ** Math.max(0, failures - 1))
    return Math.max(0, Math.round(raw * (1 + jitter * (2 * this.#clock.random() - 1))))
  }

  #schedule (delayMs: number): void {
    this.#clock.clearTimeout(this.#timer)
    this.#nextAttemptAt = this.#clock.now() + delayMs
    this.#timer = this.#clock.setTimeout(() => {
      if (this.#closed) return
      // Leaving circuit_open: this is the one half-open probe; a failure opens the circuit again.
      this.#setState('reconnecting')
      this.#runAttempt()
    }, delayMs)
  }

  #clearTimers (): void {
    this.#clock.clearTimeout(this.#timer)
    this.#clock.clearTimeout(this.#pingTimer)
    this.#timer = undefined
    this.#pingTimer = undefined
  }

  // ---- liveness ----

  #schedulePing (link: Link): void {
    if (this.#tuning.pingIntervalMs <= 0) return
    this.#pingTimer = this.#clock.setTimeout(() => {
      if (this.#link !== link) return
      this.#checkLiveness(link, 'health check')
      this.#schedulePing(link)
    }, this.#tuning.pingIntervalMs)
  }

  /** A hung server is found by asking it something trivial: no answer in time means it is gone. */
  #checkLiveness (link: Link, why: string): void {
    if (this.#link !== link || this.#state !== 'connected' || link.pinging) return
    link.pinging = true
    const timeout = this.#tuning.pingTimeoutMs
    link.client.ping({ timeout }).then(() => {
      link.pinging = false
    }, (err: unknown) => {
      link.pinging = false
      // An error answer is still an answer: the server is alive.
      if (err instanceof ProtocolError) return
      const reason = isTimeout(err) ? `the server stopped answering (no reply to a ping within ${timeout} ms after ${why})` : message(err)
      this.#lost(link, reason)
    })
  }

  // ---- requests ----

  async #request<T> (label: string, run: (client: Client, request: RequestOptions) => Promise<T>, options: CallOptions): Promise<T> {
    const link = this.#link
    if (this.#state !== 'connected' || link === undefined) throw new Error(this.describe())
    const { signal } = options
    const timeout = Math.min(options.timeoutMs ?? (signal ? MAX_TIMER_MS : this.callTimeoutMs), MAX_TIMER_MS)
    try {
      return await run(link.client, { signal, timeout })
    } catch (err) {
      if (signal?.aborted) {
        // The SDK has told the server (notifications/cancelled). A deadline hit may mean a hung server.
        const reason: unknown = signal.reason
        if (reason instanceof Error && reason.name === 'TimeoutError') this.#checkLiveness(link, `${label} timed out`)
        throw new Error(`MCP server "${this.server}" did not finish ${label}: the call was cancelled (${message(reason)})`)
      }
      if (isTimeout(err)) {
        this.#checkLiveness(link, `${label} timed out`)
        throw new Error(`MCP server "${this.server}" did not answer ${label} within ${timeout} ms`)
      }
      if (isConnectionLoss(err)) {
        this.#lost(link, `the connection failed during ${label}: ${message(err)}`)
        throw new Error(`MCP server "${this.server}" went away during ${label}: ${message(err)}`)
      }
      throw new Error(`MCP server "${this.server}" failed ${label}: ${message(err)}`)
    }
  }

  // ---- children ----

  /** Closes the client and reaps the child: SIGTERM at once, SIGKILL after the grace. Idempotent. */
  #terminate (link: Link, graceful: boolean): Promise<void> {
    link.terminated ??= (async () => {
      const { transport } = link
      const child = link.child ?? childOf(transport)
      if (graceful && transport instanceof StreamableHTTPClientTransport && link.connectedAt !== undefined) {
        // Tell the server the session is over; a dead server must not hold up shutdown.
        await within(transport.terminateSession(), 1_000)
      }
      // 'exit' means reaped: no zombie is left once it fires. Listened to before anything is closed.
      const exited = child && isRunning(child) ? once(child, 'exit').then(() => {}, () => {}) : undefined
      const closing = Promise.allSettled([link.client.close(), transport.close()])
      if (child && exited && isRunning(child)) {
        child.kill('SIGTERM')
        if (!await within(exited, this.#tuning.killGraceMs)) {
          this.#logger.warn({ pid: child.pid }, 'MCP server ignored SIGTERM; sending SIGKILL')
          child.kill('SIGKILL')
          await within(exited, this.#tuning.killGraceMs)
        }
      }
      await within(closing, this.#tuning.killGraceMs)
    })()
    return link.terminated
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
