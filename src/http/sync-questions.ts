// A REST call answered in its own request (no `Prefer: respond-async`) whose tool asks its caller a
// question (ctx.ask): the request is answered with the envelope `status: "input_required"`, the
// questions (`inputRequests`) and a `requestState`; the caller sends the same call again with the
// header `X-Request-State: <requestState>` and the body `{ "inputResponses": { ... } }`, on any
// replica, and is answered what comes next: the envelope of the result, or the next question. The
// call waits meanwhile in the book (src/calls/question-relay.ts), no longer cancelled by its first
// connection closing; only its owner can answer it, and only with the call of the same tool.
import type { FastifyRequest } from 'fastify'
import { firstTurn, nextTurn, type Turn } from '../calls/question-relay.ts'
import type { CallView } from '../calls/call-record.ts'
import { dispatched, failed, inputRequiredOutcome } from '../dispatch/call/outcome.ts'
import type { Answer } from '../idempotency/idempotent-calls.ts'
import { BadRequestError, CallNotFoundError } from '../shared/errors.ts'
import { isRecord } from '../shared/objects.ts'
import { ownerOf } from './call-answers.ts'

export const REQUEST_STATE_HEADER = 'x-request-state'

/** A call recorded as ended without its answer (its replica stopped): the failed envelope saying so. */
export function lostAnswer (view: CallView): Answer {
  const { outcome, httpStatus } = dispatched(view.tool, view.callId, failed('error', view.error ?? 'the call was lost: the replica that ran it stopped before it ended'), 0)
  return { status: httpStatus, payload: outcome }
}

function answerOf (turn: Turn, tool: string, startedAt: number): Answer {
  if (turn.kind === 'answer') return turn.answer
  // A question is no failure of the request: 200, and the envelope says the call waits.
  return { status: 200, payload: inputRequiredOutcome(tool, turn.callId, turn.inputRequests, turn.requestState, Math.round(performance.now() - startedAt)) }
}

/**
 * Runs one call of `request` whose tool may ask; `detached`: the call is not its connection's (an
 * Idempotency-Key), only shutdown stops it before it asks.
 */
export async function answerAsking (request: FastifyRequest, name: string, args: unknown, callId: string | undefined, detached: boolean): Promise<Answer> {
  const { calls, detachedCalls, gateway } = request.server
  const startedAt = performance.now()
  const connection = detached ? gateway.shutdownSignal : calls.cancellationOf(request).signal
  const turn = await firstTurn(detachedCalls, { owner: ownerOf(request), tool: name }, connection, async (signal, ask) => {
    const { outcome, httpStatus } = await calls.start(request, name, args, callId, detached, { signal, ask })
    return { status: httpStatus, payload: outcome }
  })
  return answerOf(turn, name, startedAt)
}

/** The caller's answers to the call its X-Request-State names, and that call's next turn. */
export async function answerRetry (request: FastifyRequest, name: string, requestState: string, body: unknown): Promise<Answer> {
  if (!isRecord(body) || !isRecord(body.inputResponses)) {
    throw new BadRequestError(`with ${REQUEST_STATE_HEADER}, the body is the answers: { "inputResponses": { "<question key>": <answer>, ... } } (the call keeps the arguments it was made with)`)
  }
  const startedAt = performance.now()
  const turn = await nextTurn(request.server.detachedCalls, ownerOf(request), name, requestState, body.inputResponses, lostAnswer)
  if (turn === undefined) throw new CallNotFoundError(`for ${REQUEST_STATE_HEADER} ${JSON.stringify(requestState.slice(0, 80))}`)
  return answerOf(turn, name, startedAt)
}
