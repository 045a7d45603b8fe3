// Per-caller rate limiting with @fastify/rate-limit: one budget per API key (per client address on
// an open gateway), checked after authentication; health, readiness and metrics are exempt. Over
// the budget a caller gets 429 GW_ERR_RATE_LIMITED with Retry-After.
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import type { GatewayConfig } from '../config/schema.ts'
import { RateLimitedError } from '../errors.ts'

export async function installRateLimit (app: FastifyInstance, config: GatewayConfig['http']['rateLimit']): Promise<void> {
  if (config.max === undefined) return
  await app.register(rateLimit, {
    global: true,
    hook: 'preHandler',
    max: config.max,
    timeWindow: config.timeWindowMs,
    allowList: (request) => request.routeOptions.config?.public === true,
    keyGenerator: (request) => request.principal !== undefined && request.principal.name !== 'anonymous'
      ? `key:${request.principal.name}`
      : `ip:${request.ip}`,
    errorResponseBuilder: (_request, context) =>
      new RateLimitedError(`rate limit of ${context.max} requests per ${config.timeWindowMs} ms reached; retry in ${context.after}`)
  })
}
