// `Prefer: respond-async` (RFC 7240) on the dispatch routes: the call is recorded in the book of
// detached calls (app.detachedCalls) and answered at once, 202 with `Location: /calls/<id>` and
// `Preference-Applied: respond-async`; it runs on, its client gone or not, until it ends, is
// cancelled (DELETE /calls/:id) or the gateway shuts down. With an Idempotency-Key the 202 is what
// is kept: a retry answers the same call id, and the call runs once.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { CallAnswer, HeldCall } from '../calls/call-record.ts'
import { ownerOf, runningBody } from './call-answers.ts'
import { runOnce } from './idempotency.ts'
import { numericHeader } from './query.ts'

/** Whether a Prefer header asks for respond-async: preferences are comma-separated, names case-insensitive, parameters after `;`. */
export function prefersAsync (prefer: string | string[]): boolean {
  for (const line of Array.isArray(prefer) ? prefer : [prefer]) {
    for (const preference of line.split(',')) {
      if (preference.split(';')[0].trim().toLowerCase() === 'respond-async') return true
    }
  }
  return false
}

/**
 * Starts `run` as a detached call of the request's caller and answers 202 (or the kept answer of
 * its Idempotency-Key). The per-call headers are read first: a bad one is a 400 now, not a failed
 * call later.
 */
export async function answerAsync (request: FastifyRequest, reply: FastifyReply, route: string, tool: string, run: (held: HeldCall) => Promise<CallAnswer>): Promise<unknown> {
  numericHeader(request.headers, 'x-tool-timeout-ms')
  numericHeader(request.headers, 'x-max-result-chars')
  const answer = await runOnce(request, route, async () => {
    const view = await request.server.detachedCalls.start({ owner: ownerOf(request), tool }, run)
    return { status: 202, payload: runningBody(view) }
  })
  if (answer.replayed) reply.header('idempotent-replayed', 'true')
  reply.code(answer.status)
  const callId = (answer.payload as { callId?: unknown }).callId
  if (answer.status === 202 && typeof callId === 'string') {
    reply.header('location', `/calls/${callId}`).header('preference-applied', 'respond-async')
  }
  return answer.payload
}
