// Keeps one subscriptions/listen stream open to a server spoken to in 2026-07-28, the revision in
// which a server tells its tool list changes only on a stream the client opens (the notifications
// reach the link's notifications/tools/list_changed handler, as a 2025-era server's do).
//
// A stream that ends while the link is up is opened again, with back-off, rather than taken for a
// lost connection. Over HTTP the revision has no session: calls do not depend on the stream, and
// proxies commonly cut long-lived responses after a few minutes, so reconnecting (tools
// unavailable meanwhile) at each cut would make a healthy server flap. Whether the server itself is
// gone is for the link's liveness probe to say, which onBroken asks for at once; a stream that
// comes back calls onReopened, since changes made while it was down were told to no one. Over stdio
// the stream shares the pipe: it ends only with the process, which the link sees first.
import type { Client, McpSubscription } from '@modelcontextprotocol/client'
import type { Logger } from 'pino'
import { messageOf } from '../shared/objects.ts'
import type { McpClock } from './clock.ts'

/** Most wait before opening a broken stream again; the first is the tuning's listenRetryBaseMs, doubled per failure. */
export const LISTEN_RETRY_MAX_MS = 30_000
/** A stream that lasted this long starts the back-off over when it ends. */
const LISTEN_STABLE_MS = 30_000

export interface ListenKeeperOptions {
  client: Pick<Client, 'listen'>
  clock: McpClock
  logger: Logger
  /** How long the server has to acknowledge a listen. */
  ackTimeoutMs: number
  /** The stream is open again after a break: changes made meanwhile were not told. */
  onReopened: () => void
  /** The stream ended or could not be opened: worth checking the server still answers. */
  onBroken: (why: string) => void
  /** First wait before opening the stream again after a break; doubles per failure. */
  retryBaseMs: number
}

export class ListenKeeper {
  readonly #options: ListenKeeperOptions
  #subscription: McpSubscription | undefined
  #openedAt = 0
  #failures = 0
  #timer: unknown
  #closed = false

  constructor (options: ListenKeeperOptions) {
    this.#options = options
  }

  /** Whether a stream is open now. */
  get open (): boolean {
    return this.#subscription !== undefined
  }

  /** Opens the stream; resolves once the server has acknowledged it or the attempt failed (then retried later). Never rejects. */
  start (): Promise<void> {
    return this.#attempt(false)
  }

  /** Stops for good: the stream is closed (the server is told) and no retry is left planned. */
  async close (): Promise<void> {
    this.#closed = true
    this.#options.clock.clearTimeout(this.#timer)
    const subscription = this.#subscription
    this.#subscription = undefined
    await subscription?.close().catch(() => {})
  }

  async #attempt (reopening: boolean): Promise<void> {
    this.#timer = undefined
    if (this.#closed) return
    const { client, ackTimeoutMs, logger } = this.#options
    let subscription: McpSubscription
    try {
      subscription = await client.listen({ toolsListChanged: true }, { timeout: ackTimeoutMs })
    } catch (err) {
      if (this.#closed) return
      this.#failures++
      logger.warn({ err: messageOf(err), failures: this.#failures }, 'MCP subscriptions/listen failed; it is tried again')
      this.#options.onBroken(`subscriptions/listen failed: ${messageOf(err)}`)
      this.#retry()
      return
    }
    if (this.#closed) {
      await subscription.close().catch(() => {})
      return
    }
    if (subscription.honoredFilter.toolsListChanged !== true) {
      // Nothing to wait for on this stream; the list's ttlMs is then the only sign of change.
      logger.info('MCP server does not tell tool list changes on subscriptions/listen')
      await subscription.close().catch(() => {})
      return
    }
    this.#subscription = subscription
    this.#openedAt = this.#options.clock.now()
    logger.debug({ reopening }, 'MCP subscriptions/listen stream open')
    subscription.closed.then((how) => { this.#ended(subscription, how) }, () => {})
    if (reopening) this.#options.onReopened()
  }

  #ended (subscription: McpSubscription, how: 'local' | 'graceful' | 'remote'): void {
    if (this.#subscription !== subscription) return
    this.#subscription = undefined
    if (this.#closed || how === 'local') return
    if (this.#options.clock.now() - this.#openedAt >= LISTEN_STABLE_MS) this.#failures = 0
    this.#failures++
    const why = how === 'graceful' ? 'the server ended the subscriptions/listen stream' : 'the subscriptions/listen stream broke'
    this.#options.logger.info({ how, failures: this.#failures }, `MCP ${why}; it is opened again`)
    this.#options.onBroken(why)
    this.#retry()
  }

  /** base × 2^(failures-1), capped, ± 20 % so that gateways do not come back in step. */
  #retry (): void {
    if (this.#closed) return
    const { clock, retryBaseMs } = this.#options
    const raw = Math.min(LISTEN_RETRY_MAX_MS, retryBaseMs * 2 ** Math.max(0, this.#failures - 1))
    const delay = Math.round(raw * (0.8 + 0.4 * clock.random()))
    this.#timer = clock.setTimeout(() => { this.#attempt(true).catch(() => {}) }, delay)
  }
}
