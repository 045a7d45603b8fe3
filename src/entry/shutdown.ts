// Graceful shutdown: drain first (readiness 503, new calls 503 with Retry-After, the server still
// answering), let in-flight calls finish within the grace period, then abort whatever is left,
// close the server and release what tools hold. No call in flight is dropped without an answer.
import type { FastifyInstance } from 'fastify'
import { withTimeout } from '../shared/timers.ts'

export async function drainAndClose (app: FastifyInstance, graceMs: number): Promise<void> {
  const { lifecycle, gateway, log } = app
  lifecycle.beginDrain()
  log.info({ inFlight: lifecycle.inFlight, graceMs }, 'draining: refusing new calls, waiting for calls in flight')
  const result = await withTimeout(lifecycle.idle().then(() => 'idle' as const), graceMs, () => 'timeout' as const)
  if (result === 'timeout') {
    log.warn({ inFlight: lifecycle.inFlight }, 'grace period over: cancelling calls still running')
    // stop() aborts every handler's signal; their calls answer "cancelled" before the server closes.
    await gateway.stop()
    await lifecycle.idle()
  }
  await app.close()
}
