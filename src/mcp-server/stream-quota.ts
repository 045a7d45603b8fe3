// The long-lived MCP streams of each caller: a 2025 session's notification stream (GET /mcp) and a
// 2026-07-28 `subscriptions/listen`. One count per caller for both, so one caller cannot hold
// every connection whichever revision it speaks; each stream ends after a maximum lifetime, or when
// the access token it was opened with expires (the client opens it again), and the streams of a key
// a reload revoked end at once.
import type { Principal } from '../access/principal.ts'

export interface StreamQuotaOptions {
  maxPerCaller: number
  maxLifetimeMs: number
}

interface OpenStream {
  readonly principal: Principal | undefined
  readonly end: () => void
}

export class StreamQuota {
  readonly #options: StreamQuotaOptions
  readonly #counts = new Map<string, number>()
  readonly #open = new Set<OpenStream>()

  constructor (options: StreamQuotaOptions) {
    this.#options = options
  }

  /**
   * Counts a stream of `caller` open until `response` closes, calling `end` once its lifetime is
   * over; or says why the caller may not open one more (nothing counted then).
   */
  open (caller: string, principal: Principal | undefined, response: NodeJS.EventEmitter, end: () => void): string | undefined {
    const count = this.#counts.get(caller) ?? 0
    if (count >= this.#options.maxPerCaller) {
      return `this caller already has ${count} MCP notification streams open (GET /mcp or subscriptions/listen), the most one may have (mcp.maxStreamsPerKey, MCP_MAX_STREAMS_PER_KEY); close one, or retry later`
    }
    this.#counts.set(caller, count + 1)
    const stream: OpenStream = { principal, end }
    this.#open.add(stream)
    // A stream opened with an access token ends when the token does: the client signs in again.
    const untilExpiry = principal?.expiresAt === undefined ? Infinity : Math.max(0, principal.expiresAt - Date.now())
    const timer = setTimeout(end, Math.min(this.#options.maxLifetimeMs, untilExpiry))
    timer.unref()
    response.once('close', () => {
      clearTimeout(timer)
      this.#open.delete(stream)
      const left = (this.#counts.get(caller) ?? 1) - 1
      if (left <= 0) this.#counts.delete(caller)
      else this.#counts.set(caller, left)
    })
    return undefined
  }

  /** Ends the streams whose key `stillValid` refuses (a reload removed or changed it). */
  endRevoked (stillValid: (principal: Principal) => boolean): void {
    for (const stream of [...this.#open]) {
      if (stream.principal !== undefined && !stillValid(stream.principal)) stream.end()
    }
  }
}
