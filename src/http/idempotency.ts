// The Idempotency-Key header of the dispatch routes (src/idempotency/idempotent-calls.ts): records
// in this process's memory, or in Redis when the gateway has one. A call made with a key is not
// cancelled when its client goes away: it runs to its end (or its deadline) so that the client's
// retry gets its answer instead of running it again.
import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Logger } from 'pino'
import { fingerprintOf, IdempotentCalls, type Answer } from '../idempotency/idempotent-calls.ts'
import { MemoryRecords } from '../idempotency/memory-records.ts'
import { defaultBytesPerKey } from '../shared/owner-budgets.ts'

declare module 'fastify' {
  interface FastifyInstance {
    idempotency: IdempotentCalls
  }
}

/** The headers that change what a call does or answers: part of what a key stands for. */
const CALL_HEADERS = ['x-tool-call-id', 'x-session-id', 'x-tool-timeout-ms', 'x-max-result-chars'] as const

/**
 * Answers `execute()`'s answer, running it at most once per Idempotency-Key of the caller when the
 * request has one; `execute(detached)`: whether the call must outlive its connection.
 */
export async function answerOnce (request: FastifyRequest, reply: FastifyReply, route: string, execute: (detached: boolean) => Promise<Answer>): Promise<unknown> {
  const key = request.headers['idempotency-key']
  let answer: Answer
  if (typeof key !== 'string') {
    answer = await execute(false)
  } else {
    const kept = await runKept(request, key, route, execute)
    if (kept.replayed) reply.header('idempotent-replayed', 'true')
    answer = kept
  }
  reply.code(answer.status)
  return answer.payload
}

/**
 * `execute()`'s answer, run at most once per Idempotency-Key of the caller when the request has
 * one (`replayed`: a kept answer), for routes that answer it their own way (an event stream).
 */
export async function runOnce (request: FastifyRequest, route: string, execute: (detached: boolean) => Promise<Answer>): Promise<Answer & { replayed: boolean }> {
  const key = request.headers['idempotency-key']
  if (typeof key !== 'string') return { ...await execute(false), replayed: false }
  return await runKept(request, key, route, execute)
}

async function runKept (request: FastifyRequest, key: string, route: string, execute: (detached: boolean) => Promise<Answer>): Promise<Answer & { replayed: boolean }> {
  const { idempotency, calls } = request.server
  return await idempotency.run({
    key,
    owner: request.principal?.name ?? 'anonymous',
    fingerprint: fingerprintOf(route, request.body, CALL_HEADERS.map((name) => request.headers[name] ?? null)),
    signal: calls.cancellationOf(request).signal
  }, async () => await execute(true))
}

// Not `export default fp(...)`: TypeScript 6.0 leaves the `.ts` of a dynamic import inside an
// `export default` expression as it is, and the compiled build could not load the module.
const idempotencyPlugin = fp(async function idempotency (app) {
  const { config } = app.gateway
  const logger = app.log.child({ component: 'idempotency' }) as unknown as Logger
  const { ttlMs, maxTotalBytes, maxBytesPerKey = defaultBytesPerKey(maxTotalBytes) } = config.idempotency
  const memory = new MemoryRecords({ ttlMs, maxTotalBytes, maxBytesPerKey })
  const { redis } = app
  const shared = redis === undefined ? undefined : new (await import('../idempotency/redis-records.ts')).RedisRecords(redis, { ttlMs, maxBytesPerKey })
  app.decorate('idempotency', new IdempotentCalls({ memory, shared, logger }))
}, { name: 'idempotency', dependencies: ['shared-state', 'calls'] })

export default idempotencyPlugin
