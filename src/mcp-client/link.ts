// One spawned child or HTTP session of an MCP server, from its first byte to its reaping: the SDK
// transport and client (link-client.ts) in the revision the server speaks (protocol.ts), the
// child's stderr, the health probe, the subscriptions/listen stream of a 2026-07-28 server
// (listen-keeper.ts), termination (SIGTERM, then SIGKILL after a grace), and what a server asks the
// gateway's callers on the way: its own requests during a call (server-requests.ts, each traced to
// its call by call-attribution.ts) and the task handles it answers with (task-handles.ts). Which
// failures mean the connection itself is gone: link-failures.ts.
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import type { Readable } from 'node:stream'
import {
  ProtocolError, StreamableHTTPClientTransport, type Client, type DiscoverResult, type PriorDiscovery, type ServerCapabilities
} from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import type { Logger } from 'pino'
import type { McpServerConfig } from '../config/schema.ts'
import { McpStartFailedError } from '../shared/errors.ts'
import { messageOf } from '../shared/objects.ts'
import { withTimeout } from '../shared/timers.ts'
import { boundedFetch } from './bounded-fetch.ts'
import { CallAttribution } from './call-attribution.ts'
import { withCallAuthorization } from './call-authorization.ts'
import { useBoundedReader } from './bounded-read-buffer.ts'
import type { McpClock } from './clock.ts'
import { answersAfterNotifications } from './dispatch-order.ts'
import { createClient, createTransport } from './link-client.ts'
import { failureMessage, isTimeout } from './link-failures.ts'
import { ListenKeeper } from './listen-keeper.ts'
import { eraOf, pinMismatch, protocolFailure, protocolSetting, type ProtocolEra, type ProtocolSetting } from './protocol.ts'
import { answerServerRequests } from './server-requests.ts'
import { childOf, isRunning, workingFolderProblem, type StderrLog } from './stdio-child.ts'
import { passTaskHandles } from './task-handles.ts'
import { listAllTools, type ListedTools } from './tool-list.ts'
import type { McpConnectionTuning } from './tuning.ts'

export interface McpLinkOptions {
  /** The server's name in the config, for errors. */
  server: string
  config: McpServerConfig
  logger: Logger
  /** The server's stderr log, shared by all its children so the rate cap holds for a crash loop too. */
  stderrLog: StderrLog
  tuning: Pick<McpConnectionTuning, 'killGraceMs' | 'pingIntervalMs' | 'pingTimeoutMs' | 'maxMessageBytes' | 'listenRetryBaseMs'>
  clock: McpClock
  /** The child exited, the session closed or the server stopped answering; `why` says which, for operators. */
  onLost: (why: string) => void
  /** The server sent notifications/tools/list_changed. */
  onToolsChanged: () => void
  /** An answer of the server was refused or dropped (another request's, over the cap): `reason` says which. */
  onRefused?: (reason: string) => void
  /** The liveness probe of a 2026-07-28 server got its server/discover answer (the verdict cache keeps the newest). */
  onRediscovered?: (discover: DiscoverResult) => void
}

/** What the server told us on connecting. */
export interface LinkHandshake {
  capabilities: ServerCapabilities
  tools: ListedTools
  /** The revision spoken, e.g. 2026-07-28 or 2025-11-25. */
  protocolVersion: string
}

/** Resolves true if `promise` settles within `ms` (real time: children die in real time). */
function within (promise: Promise<unknown>, ms: number): Promise<boolean> {
  return withTimeout(promise.then(() => true, () => true), ms, () => false, { unref: true })
}

export class McpLink {
  readonly client: Client
  readonly transport: StdioClientTransport | StreamableHTTPClientTransport
  /** Which call a request of the server's belongs to. */
  readonly attribution: CallAttribution
  /** Monotonic ms at which the connection was up; unset while connecting. */
  connectedAt: number | undefined
  /** The spawned process (stdio), kept so it is signalled through its handle, never by a pid that may be reused. */
  #child: ChildProcess | undefined
  #pid: number | undefined
  #pinging = false
  #pingTimer: unknown
  #stderr: StderrLog | undefined
  #listen: ListenKeeper | undefined
  readonly #cwd: string | undefined
  readonly #server: string
  readonly #protocol: ProtocolSetting
  readonly #onToolsChanged: () => void
  readonly #onRediscovered: ((discover: DiscoverResult) => void) | undefined
  #terminated: Promise<void> | undefined
  readonly #logger: Logger
  readonly #tuning: McpLinkOptions['tuning']
  readonly #clock: McpClock
  readonly #onLost: (why: string) => void

  constructor (options: McpLinkOptions) {
    this.#server = options.server
    this.#logger = options.logger
    this.#tuning = options.tuning
    this.#clock = options.clock
    this.#onLost = options.onLost
    this.#onToolsChanged = options.onToolsChanged
    this.#onRediscovered = options.onRediscovered
    this.#protocol = protocolSetting(options.config)
    this.#cwd = 'command' in options.config ? options.config.cwd : undefined
    const capBytes = options.config.maxMessageBytes ?? options.tuning.maxMessageBytes
    const attribution = this.attribution = new CallAttribution({ stdio: 'command' in options.config })
    const fetch = withCallAuthorization(boundedFetch({
      server: options.server,
      capBytes,
      onRefused: (refused) => {
        this.#logger.warn(refused, 'MCP server answer refused')
        options.onRefused?.(refused.reason)
      },
      onServerRequest: (serverRequestId, streamRequestId) => { attribution.arrivedOn(serverRequestId, streamRequestId) }
    }))
    const transport = this.transport = createTransport(options.config, fetch)
    const client = this.client = createClient(this.#protocol)
    attribution.watch(transport)
    answerServerRequests(client, { server: options.server, attribution, logger: this.#logger })
    // Set before connect: the client chains its own handler after this one.
    transport.onclose = () => {
      attribution.closed()
      const last = this.#stderr?.lastLine
      this.#onLost(transport instanceof StdioClientTransport
        ? `the server process exited${last ? ` (last stderr line: ${last})` : ''}`
        : 'the server closed the connection')
    }
    transport.onerror = (err) => {
      this.#logger.debug({ err: messageOf(err) }, 'MCP transport error')
      // Over HTTP nothing else says the server went away between calls: its GET stream (2025) or
      // listen stream (2026-07-28) ends and cannot be reopened (the server stopped, or restarted and
      // forgot the session, 404). A probe tells which; a failed one reconnects now rather than at
      // the next call or health check.
      if (transport instanceof StreamableHTTPClientTransport && this.connectedAt !== undefined) this.checkAlive('a transport error')
    }
    client.onerror = (err) => this.#logger.debug({ err: messageOf(err) }, 'MCP client error')
    client.setNotificationHandler('notifications/tools/list_changed', () => options.onToolsChanged())
    if (transport instanceof StdioClientTransport) {
      // One answer over the cap fails its own request instead of closing the transport.
      useBoundedReader(transport, capBytes, (message) => {
        this.#logger.warn({ ...message }, 'MCP server answer over the size cap refused')
        options.onRefused?.(`an answer of ${message.bytes} bytes went over the ${message.capBytes}-byte cap`)
      })
    }
    if (transport instanceof StdioClientTransport && transport.stderr) {
      this.#stderr = options.stderrLog
      this.#stderr.lastLine = undefined
      this.#stderr.follow(transport.stderr as Readable, () => this.#pid ?? childOf(transport)?.pid)
    }
  }

  /** The child's pid (stdio), once connected. */
  get pid (): number | undefined { return this.#pid }

  /** The revision spoken, once connected. */
  get protocolVersion (): string | undefined {
    return this.connectedAt === undefined ? undefined : this.client.getNegotiatedProtocolVersion()
  }

  /** The era of that revision, once connected. */
  get protocolEra (): ProtocolEra | undefined {
    const version = this.protocolVersion
    return version === undefined ? undefined : eraOf(version)
  }

  /** The server's Mcp-Session-Id (HTTP), when it keeps sessions. */
  get sessionId (): string | undefined {
    return this.transport instanceof StreamableHTTPClientTransport ? this.transport.sessionId : undefined
  }

  /**
   * The handshake (or, with `prior`, the adoption of a cached verdict: protocol-verdict.ts), the
   * listen stream of a 2026-07-28 server whose tools change, then the first tools/list (if the
   * server has tools), each within `timeoutMs`. The stream opens before the list is read, so that
   * no change between the two goes untold.
   */
  async connect (timeoutMs: number, prior?: PriorDiscovery): Promise<LinkHandshake> {
    const cwdProblem = workingFolderProblem(this.#cwd)
    if (cwdProblem !== undefined) throw new McpStartFailedError(this.#server, cwdProblem)
    try {
      await this.client.connect(this.transport, { timeout: timeoutMs, prior })
      answersAfterNotifications(this.transport)
      passTaskHandles(this.transport)
      this.attribution.connected()
      this.#child = childOf(this.transport)
      this.#pid = this.#child?.pid
      const negotiated = this.client.getNegotiatedProtocolVersion()
      // The SDK refuses most mismatches itself; this makes the pin hold whatever it lets through.
      const mismatch = pinMismatch(this.#server, this.#protocol, negotiated)
      if (mismatch !== undefined) throw new McpStartFailedError(this.#server, mismatch)
      const protocolVersion = negotiated ?? ''
      const capabilities = this.client.getServerCapabilities() ?? {}
      if (eraOf(protocolVersion) === 'modern' && capabilities.tools?.listChanged === true) await this.#startListening(timeoutMs)
      const tools = capabilities.tools ? await listAllTools(this.client, { timeout: timeoutMs }) : { tools: [], leftOut: [] }
      return { capabilities, tools, protocolVersion }
    } catch (err) {
      // Read while the transport still holds it: the SDK forgets the process on close.
      this.#child ??= childOf(this.transport)
      throw err
    }
  }

  #startListening (timeoutMs: number): Promise<void> {
    this.#listen = new ListenKeeper({
      client: this.client,
      clock: this.#clock,
      logger: this.#logger,
      ackTimeoutMs: timeoutMs,
      retryBaseMs: this.#tuning.listenRetryBaseMs,
      onReopened: () => this.#onToolsChanged(),
      onBroken: (why) => { if (this.connectedAt !== undefined) this.checkAlive(why) }
    })
    return this.#listen.start()
  }

  /** Pings every pingIntervalMs (0 = never) until the link is terminated. */
  keepAlive (): void {
    const { pingIntervalMs } = this.#tuning
    if (pingIntervalMs <= 0 || this.#terminated !== undefined) return
    this.#pingTimer = this.#clock.setTimeout(() => {
      this.checkAlive('health check')
      this.keepAlive()
    }, pingIntervalMs)
  }

  /**
   * A hung server is found by asking it something trivial: no answer in time means it is gone. In
   * 2025 that is ping; 2026-07-28 has no ping, and server/discover, which every server of the
   * revision must answer, is the cheapest request it has.
   */
  checkAlive (after: string): void {
    if (this.#pinging || this.#terminated !== undefined) return
    this.#pinging = true
    const timeout = this.#tuning.pingTimeoutMs
    const modern = this.protocolEra === 'modern'
    const probe = modern
      ? this.client.discover({ timeout }).then((discover) => { this.#onRediscovered?.(discover) })
      : this.client.ping({ timeout })
    probe.then(() => {
      this.#pinging = false
    }, (err: unknown) => {
      this.#pinging = false
      // An error answer is still an answer: the server is alive.
      if (err instanceof ProtocolError) return
      const asked = modern ? 'server/discover' : 'a ping'
      this.#onLost(isTimeout(err) ? `the server stopped answering (no reply to ${asked} within ${timeout} ms after ${after})` : failureMessage(err))
    })
  }

  /** A failure's message, with the child's last stderr line when it adds something (the usual explanation of a crash). */
  explain (err: unknown): string {
    const base = protocolFailure(this.#server, this.#protocol, err) ?? failureMessage(err)
    const last = this.#stderr?.lastLine
    // Text against text only to avoid saying the same line twice: nothing is decided from it.
    return last && !base.includes(last) ? `${base} (last stderr line: ${last})` : base
  }

  /** Closes the client and reaps the child: SIGTERM at once, SIGKILL after the grace. Idempotent. */
  terminate (graceful: boolean): Promise<void> {
    this.#clock.clearTimeout(this.#pingTimer)
    // No more reopening of the listen stream; its closing is awaited with the client's below.
    const listening = this.#listen?.close()
    this.#terminated ??= this.#reap(graceful, listening)
    return this.#terminated
  }

  async #reap (graceful: boolean, listening: Promise<void> | undefined): Promise<void> {
    const { transport } = this
    const child = this.#child ?? childOf(transport)
    // Only 2025-era servers keep sessions (2026-07-28 has none): tell the server this one is over;
    // a dead server must not hold up shutdown.
    if (graceful && transport instanceof StreamableHTTPClientTransport && this.connectedAt !== undefined && transport.sessionId !== undefined) {
      await within(transport.terminateSession(), 1_000)
    }
    if (listening) await within(listening, 1_000)
    // 'exit' means reaped: no zombie is left once it fires. Listened to before anything is closed.
    const exited = child && isRunning(child) ? once(child, 'exit').then(() => {}, () => {}) : undefined
    const closing = Promise.allSettled([this.client.close(), transport.close()])
    if (child && exited && isRunning(child)) {
      child.kill('SIGTERM')
      if (!await within(exited, this.#tuning.killGraceMs)) {
        this.#logger.warn({ pid: child.pid }, 'MCP server ignored SIGTERM; sending SIGKILL')
        child.kill('SIGKILL')
        await within(exited, this.#tuning.killGraceMs)
      }
    }
    await within(closing, this.#tuning.killGraceMs)
  }
}
