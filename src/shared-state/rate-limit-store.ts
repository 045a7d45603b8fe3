// A rate-limit store for @fastify/rate-limit that counts in Redis, so that every replica sees the
// same counter and a caller gets its budget once, not once per replica. While Redis is unreachable
// (or a command fails or times out) it counts in this process's memory instead: the limit then holds
// per replica, a documented degradation, and no request fails because Redis is down.
import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import LocalStore from '@fastify/rate-limit/store/LocalStore.js'
import RedisStore from '@fastify/rate-limit/store/RedisStore.js'
import type { RedisLink } from './redis-link.ts'

type Increment = Parameters<FastifyRateLimitStore['incr']>

class FailoverStore implements FastifyRateLimitStore {
  readonly #link: RedisLink
  readonly #shared: FastifyRateLimitStore
  readonly #local: FastifyRateLimitStore

  constructor (link: RedisLink, shared: FastifyRateLimitStore, local: FastifyRateLimitStore) {
    this.#link = link
    this.#shared = shared
    this.#local = local
  }

  incr (...[key, callback, timeWindow, max]: Increment): void {
    if (!this.#link.connected) {
      this.#local.incr(key, callback, timeWindow, max)
      return
    }
    this.#shared.incr(key, (err, result) => {
      if (err === null) {
        callback(null, result)
        return
      }
      this.#link.failed(err)
      this.#local.incr(key, callback, timeWindow, max)
    }, timeWindow, max)
  }

  child (routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
    return new FailoverStore(this.#link, this.#shared.child(routeOptions), this.#local.child(routeOptions))
  }
}

/** The store class @fastify/rate-limit constructs (it calls `new` with its own options). */
export function failoverStoreOf (link: RedisLink): FastifyRateLimitStoreCtor {
  return class extends FailoverStore {
    // The plugin's own parameters (its type does not list the two it adds to the options).
    constructor (options: FastifyRateLimitOptions & { continueExceeding?: boolean, exponentialBackoff?: boolean }) {
      const continueExceeding = options.continueExceeding === true
      const exponentialBackoff = options.exponentialBackoff === true
      super(link, new RedisStore(continueExceeding, exponentialBackoff, link.client, 'rate-limit:'), new LocalStore(continueExceeding, exponentialBackoff))
    }
  }
}
