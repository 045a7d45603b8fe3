// The knobs of an MCP connection (reconnection, circuit breaker, liveness, reaping, stderr) and the
// defaults the gateway runs with.

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
  /** Largest message of the server, decoded (stdio line, HTTP JSON body, SSE event); past it that answer is refused. */
  maxMessageBytes: number
  /** First wait before a broken subscriptions/listen stream (2026-07-28) is opened again; doubles per failure up to 30 s. */
  listenRetryBaseMs: number
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
  stderrWindowMs: 10_000,
  // The MCP SDK's own cap on a stdio message (10 MiB), for HTTP too.
  maxMessageBytes: 10_485_760,
  listenRetryBaseMs: 1_000
})

export const DEFAULT_CALL_TIMEOUT_MS = 60_000
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000
