// Work in flight, bounded three ways: per connection (HTTP/1.1 pipelining lets one connection send
// thousands of requests before reading an answer, and Node hands each to the app at once), per
// caller (API key, else client address; the same identity as the rate limit) and in total. A request
// past a limit is answered at once, 429 for a caller's own limits and 503 for the whole gateway's,
// with Retry-After, and never queued: queued requests are memory an attacker chooses. A request
// counts from when it is authenticated until its answer is sent or its connection closes.
//
// Exempt: health, readiness and metrics (probes must answer while traffic saturates) and the MCP
// notification streams (GET /mcp, and a POST found to be a `subscriptions/listen` once its body is
// read, which leaves early): they stay open by design and have caps of their own.
import type { Socket } from 'node:net'
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import type { GatewayConfig } from '../config/schema.ts'
import { OverloadedError, RateLimitedError } from '../shared/errors.ts'

/** Seconds a refused caller is told to wait: a call in flight usually ends within that. */
const RETRY_AFTER_S = 1

export type InFlightLimits = GatewayConfig['http']['inFlight']

/** The caller a request counts against, as the rate limit names it. */
export function callerOf (request: FastifyRequest): string {
  return request.principal !== undefined && request.principal.name !== 'anonymous' ? `key:${request.principal.name}` : `ip:${request.ip}`
}

/** Health, readiness and metrics: for operators and probes, outside every traffic limit. */
export function isOperatorRoute (request: FastifyRequest): boolean {
  const config = request.routeOptions.config
  return config?.public === true || config?.operatorOnly === true
}

export class InFlightCounter {
  readonly #limits: InFlightLimits
  #total = 0
  readonly #perCaller = new Map<string, number>()
  readonly #perSocket = new WeakMap<Socket, number>()

  constructor (limits: InFlightLimits) {
    this.#limits = limits
  }

  get total (): number {
    return this.#total
  }

  /** Counts a request in, or answers why it may not start (nothing counted then). */
  enter (caller: string, socket: Socket): Error | (() => void) {
    const onSocket = this.#perSocket.get(socket) ?? 0
    if (onSocket >= this.#limits.perConnection) {
      return new RateLimitedError(`this connection already has ${onSocket} requests in flight, the most one may have (http.inFlight.perConnection, IN_FLIGHT_PER_CONNECTION); wait for their answers or use another connection`)
    }
    const ofCaller = this.#perCaller.get(caller) ?? 0
    if (ofCaller >= this.#limits.perKey) {
      return new RateLimitedError(`this caller already has ${ofCaller} requests in flight, the most one may have (http.inFlight.perKey, IN_FLIGHT_PER_KEY); retry when some have answered`)
    }
    if (this.#total >= this.#limits.total) {
      return new OverloadedError(`the gateway has ${this.#total} requests in flight, the most it takes at once (http.inFlight.total, IN_FLIGHT_MAX); retry shortly`)
    }
    this.#total++
    this.#perCaller.set(caller, ofCaller + 1)
    this.#perSocket.set(socket, onSocket + 1)
    let left = false
    return () => {
      if (left) return
      left = true
      this.#total--
      const callerNow = (this.#perCaller.get(caller) ?? 1) - 1
      if (callerNow === 0) this.#perCaller.delete(caller)
      else this.#perCaller.set(caller, callerNow)
      this.#perSocket.set(socket, Math.max(0, (this.#perSocket.get(socket) ?? 1) - 1))
    }
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    inFlight: InFlightCounter
  }
  interface FastifyRequest {
    /** Stops counting the request in flight (a stream that stays open by design); undefined when not counted. */
    leaveInFlight: (() => void) | undefined
  }
}

/** Whether a route's requests are exempt whatever their method (GET /mcp is decided per request). */
function exemptRoute (route: RouteOptions): boolean {
  return route.config?.public === true || route.config?.operatorOnly === true
}

type OnRequest = NonNullable<RouteOptions['onRequest']>

export default fp<{ limits: InFlightLimits }>(async function inFlight (app, { limits }) {
  const counter = new InFlightCounter(limits)
  app.decorate('inFlight', counter)
  app.decorateRequest('leaveInFlight', undefined)
  const count = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const entered = counter.enter(callerOf(request), request.raw.socket)
    if (entered instanceof Error) {
      reply.header('Retry-After', String(RETRY_AFTER_S))
      throw entered
    }
    // 'close' fires once the answer is sent and also when the client goes away first.
    reply.raw.once('close', entered)
    request.leaveInFlight = entered
  }
  const countUnlessStream = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (request.method !== 'GET') await count(request, reply)
  }
  // Decided once per route, not per request: reading request.routeOptions builds an object each
  // time, which cost more than the counting itself. A route's own onRequest hooks run after the
  // app's, so the caller is authenticated by then.
  app.addHook('onRoute', (route) => {
    if (exemptRoute(route)) return
    const hook = route.url === '/mcp' ? countUnlessStream : count
    const own: OnRequest[] = route.onRequest === undefined ? [] : [route.onRequest].flat() as OnRequest[]
    route.onRequest = [hook, ...own] as OnRequest
  })
}, { name: 'in-flight', dependencies: ['auth'] })
