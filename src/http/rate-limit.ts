// Per-caller rate limiting with @fastify/rate-limit: one budget per API key (per client address on
// an open gateway), checked after authentication; health, readiness and metrics are exempt. Over
// the budget a caller gets 429 GW_ERR_RATE_LIMITED with Retry-After. Off unless a maximum is set;
// while off, the plugin is not even loaded (it brings an IPv6 address library, costly to load).
import fp from 'fastify-plugin'
import type { GatewayConfig } from '../config/schema.ts'
import { RateLimitedError } from '../shared/errors.ts'
import { callerOf, isOperatorRoute } from './in-flight.ts'

// Not `export default fp(...)`: TypeScript 6.0 leaves the `.ts` of a dynamic import inside an
// `export default` expression as it is, and the compiled build could not load the module.
const rateLimitPlugin = fp<GatewayConfig['http']['rateLimit']>(async function rateLimiting (app, config) {
  if (config.max === undefined) return
  const { default: rateLimit } = await import('@fastify/rate-limit')
  // With Redis the replicas share each caller's counter (in memory again while it is unreachable).
  const store = app.redis === undefined ? undefined : (await import('../shared-state/rate-limit-store.ts')).failoverStoreOf(app.redis)
  await app.register(rateLimit, {
    store,
    global: true,
    hook: 'preHandler',
    max: config.max,
    timeWindow: config.timeWindowMs,
    // Health, readiness and metrics (for operators, on a scraper's schedule) are never limited.
    allowList: isOperatorRoute,
    keyGenerator: callerOf,
    errorResponseBuilder: (_request, context) =>
      new RateLimitedError(`rate limit of ${context.max} requests per ${config.timeWindowMs} ms reached; retry in ${context.after}`)
  })
}, { name: 'rate-limit', dependencies: ['auth', 'shared-state'] })

export default rateLimitPlugin
