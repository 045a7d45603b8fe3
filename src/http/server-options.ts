// The Node HTTP server settings that bound what one client can hold: how long a request may take
// to arrive (Fastify's default is no limit, so a body trickling in kept its socket forever), how
// often Node checks, how many connections are served at once, and which client request ids are
// adopted (any length or content would reach every log line and answer).
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { GatewayConfig } from '../config/schema.ts'

// Short and plain: enough for UUIDs, trace ids and most tracing headers, nothing that could forge a
// log line or bloat every answer.
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** The client's X-Request-Id when short and of plain characters, else a fresh UUID. */
export function requestIdOf (request: IncomingMessage): string {
  const given = request.headers['x-request-id']
  return typeof given === 'string' && ACCEPTED_REQUEST_ID.test(given) ? given : randomUUID()
}

/**
 * Node checks for expired requests on an interval (30 s by default, which would let a 1 s timeout
 * last 31 s): check at least twice per timeout, and at least every second.
 */
function checkingIntervalMs (requestTimeoutMs: number): number {
  return Math.max(50, Math.min(1_000, Math.floor(requestTimeoutMs / 2)))
}

/** Fastify options for the server; `maxConnections` is set on the server once built. */
export function serverOptions (http: GatewayConfig['http']) {
  return {
    requestTimeout: http.requestTimeoutMs,
    http: {
      connectionsCheckingInterval: checkingIntervalMs(http.requestTimeoutMs),
      // Node's default (60 s) would outlast a shorter request timeout for a client stuck in its headers.
      headersTimeout: Math.min(60_000, http.requestTimeoutMs)
    },
    // By the time the server closes, draining has answered every call (src/entry/shutdown.ts) and the MCP
    // streams were ended: what is left is idle, or a connection a client opened and never used,
    // which Node keeps until headersTimeout (it does not count as idle), holding shutdown that long.
    forceCloseConnections: true,
    requestIdHeader: false as const,
    genReqId: requestIdOf,
    // Only listed proxies: `true` would let any client choose its address with X-Forwarded-For.
    ...(http.trustProxy.length > 0 ? { trustProxy: http.trustProxy } : {})
  }
}
