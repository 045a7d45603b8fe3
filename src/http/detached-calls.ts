// The book of calls that outlive their request (src/calls/detached-calls.ts) as `app.detachedCalls`:
// kept in this process's memory, and in Redis when the gateway has one, so that any replica answers
// for a call. The calls it runs count in the lifecycle (draining waits for them) and stop on shutdown.
import fp from 'fastify-plugin'
import type { Logger } from 'pino'
import { DetachedCalls } from '../calls/detached-calls.ts'
import { MemoryCallStore } from '../calls/memory-call-store.ts'
import { defaultBytesPerKey } from '../shared/owner-budgets.ts'

declare module 'fastify' {
  interface FastifyInstance {
    detachedCalls: DetachedCalls
  }
}

// Not `export default fp(...)`: TypeScript 6.0 leaves the `.ts` of a dynamic import inside an
// `export default` expression as it is, and the compiled build could not load the module.
const detachedCallsPlugin = fp(async function detachedCalls (app) {
  const { gateway, lifecycle, redis } = app
  const { ttlMs, maxTotalBytes, maxBytesPerCaller = defaultBytesPerKey(maxTotalBytes), answerTimeoutMs, maxRunningPerCaller, leaseMs } = gateway.config.calls
  const logger = app.log.child({ component: 'detached-calls' }) as unknown as Logger
  const memory = new MemoryCallStore({ ttlMs, maxTotalBytes, maxBytesPerCaller })
  const shared = redis === undefined ? undefined : new (await import('../calls/redis-call-store.ts')).RedisCallStore(redis, { ttlMs, leaseMs, maxBytesPerCaller, logger })
  const book = new DetachedCalls({
    memory,
    shared,
    ttlMs,
    answerTimeoutMs,
    maxRunningPerCaller,
    leaseMs,
    shutdown: gateway.shutdownSignal,
    lifecycle: { enter: () => lifecycle.enter(), leave: () => lifecycle.leave() },
    logger
  })
  app.decorate('detachedCalls', book)
  app.addHook('onClose', async () => { await book.close() })
}, { name: 'detached-calls', dependencies: ['lifecycle', 'shared-state'] })

export default detachedCallsPlugin
