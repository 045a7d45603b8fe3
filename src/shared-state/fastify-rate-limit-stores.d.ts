// The two stores @fastify/rate-limit ships (CommonJS, untyped): the failover store composes them
// rather than carrying a copy of their Lua script and LRU.
declare module '@fastify/rate-limit/store/*.js' {
  import type { FastifyRateLimitStore } from '@fastify/rate-limit'
  const Store: new (continueExceeding: boolean, exponentialBackoff: boolean, ...rest: unknown[]) => FastifyRateLimitStore
  export default Store
}
