// The state replicas share: with redis.url (REDIS_URL) a link to Redis, which the rate limit, the
// store of kept results and the idempotency records use, each falling back to memory while it is
// unreachable; without it, nothing (everything stays in this process, as on one machine). The Redis
// client is loaded only when a URL is configured.
import fp from 'fastify-plugin'
import type { Logger } from 'pino'
import type { RedisLink } from '../shared-state/redis-link.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The link to the shared Redis; undefined without redis.url. */
    redis: RedisLink | undefined
  }
}

// Not `export default fp(...)`: TypeScript 6.0 leaves the `.ts` of a dynamic import inside an
// `export default` expression as it is, and the compiled build could not load the module.
const sharedState = fp(async function sharedState (app) {
  const { config, results } = app.gateway
  const { url } = config.redis
  if (url === undefined) {
    app.decorate('redis', undefined)
    return
  }
  const [{ RedisLink }, { RedisResults }] = await Promise.all([
    import('../shared-state/redis-link.ts'),
    import('../shared-state/redis-results.ts')
  ])
  const link = await RedisLink.open({ ...config.redis, url }, app.log.child({ component: 'redis' }) as unknown as Logger)
  app.decorate('redis', link)
  results.share(new RedisResults(link, results.limits.maxBytesPerKey))
  // After every call has ended (onClose runs once the server stopped taking requests).
  app.addHook('onClose', async () => { await link.close() })
}, { name: 'shared-state' })

export default sharedState
