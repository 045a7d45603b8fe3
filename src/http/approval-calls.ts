// A plain REST call (POST /dispatch/:name) of a tool whose calls wait for a person's approval
// (trust.approval) runs on as one made with `Prefer: respond-async` does: it is answered 202 with
// `Location: /calls/<id>` and `status: "pending_approval"` once it reaches the approval gate, and it
// runs when approved. A call that ends before the gate (unknown tool, invalid arguments, a blocking
// hook) is answered at once, as a synchronous call would have been.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { CallAnswer, HeldCall } from '../calls/call-record.ts'
import { answerAsync } from './async-calls.ts'
import { ownerOf, runningBody } from './call-answers.ts'

/** How long the 202 waits for the call to reach the gate, so that it can say `pending_approval`. */
const GATE_WAIT_MS = 2_000

export async function answerHeld (request: FastifyRequest, reply: FastifyReply, route: string, tool: string, run: (held: HeldCall) => Promise<CallAnswer>): Promise<unknown> {
  const payload = await answerAsync(request, reply, route, tool, run)
  const callId = (payload as { callId?: unknown }).callId
  if (reply.statusCode !== 202 || typeof callId !== 'string') return payload
  const owner = ownerOf(request)
  const book = request.server.detachedCalls
  const deadline = Date.now() + GATE_WAIT_MS
  let view = await book.get(owner, callId)
  while (view !== undefined && view.status === 'running' && Date.now() < deadline) {
    view = await book.wait(owner, callId, deadline - Date.now(), view.updatedAt)
  }
  if (view === undefined) return payload
  if ((view.status === 'completed' || view.status === 'cancelled') && view.answer !== undefined) {
    // Ended before the gate: what a synchronous call would have answered.
    reply.removeHeader('location')
    reply.removeHeader('preference-applied')
    reply.code(view.answer.status)
    return view.answer.payload
  }
  return runningBody(view)
}
