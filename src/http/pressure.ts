// Back-pressure on the process itself: past an event-loop delay, a heap or a resident size, new
// requests are refused 503 GW_ERR_OVERLOADED with Retry-After until the process recovers, so a
// gateway that is already late does not take more work (@fastify/under-pressure samples them).
// Health, readiness and metrics still answer: an orchestrator must see an overloaded gateway live
// and ready, not dead (restarting it would drop every call it is finishing).
import fp from 'fastify-plugin'
import type { GatewayConfig } from '../config/schema.ts'
import { OverloadedError } from '../shared/errors.ts'
import { isOperatorRoute } from './in-flight.ts'

const RETRY_AFTER_S = 2

const WHAT: Record<string, string> = {
  eventLoopDelay: 'event-loop delay (http.pressure.maxEventLoopDelayMs, MAX_EVENT_LOOP_DELAY_MS)',
  heapUsedBytes: 'heap in use (http.pressure.maxHeapUsedBytes, MAX_HEAP_USED_BYTES)',
  rssBytes: 'resident memory (http.pressure.maxRssBytes, MAX_RSS_BYTES)'
}

export default fp<GatewayConfig['http']['pressure']>(async function pressure (app, limits) {
  if (limits.maxEventLoopDelayMs === 0 && limits.maxHeapUsedBytes === 0 && limits.maxRssBytes === 0) return
  const { default: underPressure } = await import('@fastify/under-pressure')
  await app.register(underPressure, {
    maxEventLoopDelay: limits.maxEventLoopDelayMs,
    maxHeapUsedBytes: limits.maxHeapUsedBytes,
    maxRssBytes: limits.maxRssBytes,
    pressureHandler: async (request, reply, type, value) => {
      if (isOperatorRoute(request)) return
      reply.header('Retry-After', String(RETRY_AFTER_S))
      throw new OverloadedError(`the gateway is over its limit of ${WHAT[type] ?? type} (now ${Math.round(Number(value))}); retry shortly`)
    }
  })
}, { name: 'pressure' })
