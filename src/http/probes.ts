// What /healthz, /readyz and /metrics answer, for the main port's routes and the admin port alike.
import type { FastifyInstance } from 'fastify'
import { DEGRADED_WITHOUT_REDIS } from '../shared-state/degraded.ts'
import type { RedisLink } from '../shared-state/redis-link.ts'

export interface Readiness {
  ready: boolean
  draining: boolean
  generation: number
  tools: number
  redis?: { connected: boolean, degraded: string[] }
}

/** The readiness details of the shared Redis; a replica without it stays ready (it degrades). */
function redisDetails (link: RedisLink | undefined): Readiness['redis'] {
  if (link === undefined) return undefined
  // Why it is not connected goes to the log only: /readyz is open, and the error names Redis's address.
  const { connected } = link
  return { connected, degraded: connected ? [] : [...DEGRADED_WITHOUT_REDIS] }
}

/** The readiness answer and its status: 200 once started and not draining, else 503. */
export function readiness (app: FastifyInstance): { status: 200 | 503, body: Readiness } {
  const { lifecycle, gateway } = app
  const body = {
    ready: lifecycle.ready,
    draining: lifecycle.draining,
    generation: gateway.registry.generation,
    tools: gateway.registry.snapshot().tools.size,
    redis: redisDetails(app.redis)
  }
  return { status: body.ready ? 200 : 503, body }
}

/** The Prometheus text and its content type. */
export async function metricsText (app: FastifyInstance): Promise<{ contentType: string, text: string }> {
  return { contentType: app.metrics.registry.contentType, text: await app.metrics.registry.metrics() }
}
