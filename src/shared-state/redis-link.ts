// The connection to the Redis the replicas share (REDIS_URL), and whether it works right now. The
// gateway never waits on a Redis that is down: the offline queue is off, so a command fails at once
// while disconnected, and a slow one fails after commandTimeoutMs; each user of the link then falls
// back to this process's memory (docs/operations.md, "Running several replicas"). ioredis keeps reconnecting
// in the background; the link logs each change of state once.
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { GatewayConfig } from '../config/schema.ts'
import { DEGRADED_WITHOUT_REDIS, type RedisStatus } from './degraded.ts'

/**
 * After a failed command the link counts as down this long: a Redis that hangs (connected, but not
 * answering) costs one request a commandTimeoutMs now and then, not every request.
 */
const PAUSE_AFTER_FAILURE_MS = 1_000

/** Reconnect 100 ms after a blip, then doubling up to every 5 s (ioredis counts attempts from 1). */
function retryDelay (attempt: number): number {
  return Math.min(100 * 2 ** Math.min(attempt - 1, 6), 5_000)
}

export class RedisLink {
  readonly client: Redis
  readonly #logger: Logger
  #connected = false
  #lastError: string | undefined
  #pausedUntil = 0

  private constructor (client: Redis, logger: Logger) {
    this.client = client
    this.#logger = logger
    client.on('ready', () => this.#changed(true))
    client.on('close', () => this.#changed(false))
    // Without a listener an error event would end the process; the state change is what is logged.
    client.on('error', (err: Error) => { this.failed(err) })
  }

  /** Connects, waiting at most connectTimeoutMs: past it the gateway serves from memory until Redis answers. */
  static async open (config: GatewayConfig['redis'] & { url: string }, logger: Logger): Promise<RedisLink> {
    const client = new Redis(config.url, {
      keyPrefix: config.keyPrefix,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: config.commandTimeoutMs,
      connectTimeout: config.connectTimeoutMs,
      retryStrategy: retryDelay
    })
    const link = new RedisLink(client, logger)
    // Errors do not end the wait: a Redis that starts beside the gateway (pods of one release) is
    // given the whole connect timeout, while ioredis retries.
    const waited = new AbortController()
    const ready = new Promise<boolean>((resolve) => client.once('ready', () => resolve(true)))
    const timedOut = sleep(config.connectTimeoutMs, false, { signal: waited.signal }).catch(() => false)
    const connected = await Promise.race([ready, timedOut])
    waited.abort()
    if (!connected) {
      logger.warn({ redis: link.status(), degraded: DEGRADED_WITHOUT_REDIS }, `Redis did not answer within ${config.connectTimeoutMs} ms at start-up: serving from memory until it does`)
    }
    return link
  }

  /** Whether to use Redis now: connected, and no command failed in the last moment. */
  get connected (): boolean {
    return this.#connected && performance.now() >= this.#pausedUntil
  }

  status (): RedisStatus {
    const connected = this.connected
    return connected || this.#lastError === undefined ? { connected } : { connected, lastError: this.#lastError }
  }

  /** A command failed (a user of the link calls this before falling back): logged once per distinct failure. */
  failed (err: unknown): void {
    const message = err instanceof Error ? err.message : String(err)
    this.#pausedUntil = performance.now() + PAUSE_AFTER_FAILURE_MS
    if (message === this.#lastError) return
    this.#lastError = message
    this.#logger.warn({ error: message, degraded: DEGRADED_WITHOUT_REDIS }, 'Redis command failed: serving from memory for it')
  }

  async close (): Promise<void> {
    this.client.removeAllListeners('ready').removeAllListeners('close')
    this.client.disconnect()
  }

  #changed (connected: boolean): void {
    if (connected === this.#connected) return
    this.#connected = connected
    if (connected) {
      this.#lastError = undefined
      this.#pausedUntil = 0
      this.#logger.info('Redis connected: rate limits, kept results and idempotency records are shared by the replicas')
    } else {
      this.#logger.warn({ degraded: DEGRADED_WITHOUT_REDIS }, 'Redis connection lost: serving from memory until it is back')
    }
  }
}
