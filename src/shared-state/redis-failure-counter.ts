// Failed authentications counted in Redis, so that the budget of key guesses per client address
// holds for all replicas together (src/http/auth-failures.ts). The count uses the fixed window of
// @fastify/rate-limit's Redis store (an INCR that sets the expiry on the first failure).
import RedisStore from '@fastify/rate-limit/store/RedisStore.js'
import type { SharedFailureCounter } from './failure-counter.ts'
import type { RedisLink } from './redis-link.ts'

export function redisFailureCounter (link: RedisLink): SharedFailureCounter {
  const store = new RedisStore(false, false, link.client, 'auth-failures:')
  return async (address, windowMs) => {
    if (!link.connected) return undefined
    return await new Promise((resolve) => {
      store.incr(address, (err, result) => {
        if (err !== null || result === undefined) {
          link.failed(err)
          resolve(undefined)
        } else {
          resolve({ count: result.current, ttlMs: result.ttl })
        }
      }, windowMs, 0)
    })
  }
}
