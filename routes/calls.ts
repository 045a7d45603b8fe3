// GET /calls/:id follows a call made with `Prefer: respond-async` (or one whose tool asked its
// caller a question), on any replica when they share Redis; `?wait=` holds the request until the
// call ends or changes. DELETE /calls/:id cancels it; POST /calls/:id/input answers its questions.
// A call belongs to the caller who made it: another caller's, an unknown and an expired call all
// answer the same 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { CallView } from '../src/calls/call-record.ts'
import type { InputResponses } from '../src/registry/types.ts'
import { answerCall, CallLost, CallRunning, ownerOf } from '../src/http/call-answers.ts'
import { BadRequestError, CallNotFoundError } from '../src/shared/errors.ts'

/** How long a DELETE waits for the call to end, so that its answer is the cancelled envelope. */
const CANCEL_WAIT_MS = 5_000

const Params = Type.Object({
  id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$', description: 'The callId a 202 answered.' })
})

const ERROR = Type.Ref('ErrorBody')

const ENDED = Type.Union([Type.Ref('Envelope'), Type.Ref('BatchAnswer'), CallLost, ERROR], {
  description: 'The call ended: what a synchronous call would have answered (the envelope; for a batch, the batch answer; the error body if the gateway failed it), whatever its status (`X-Dispatch-Status` gives the status a synchronous call would have had: 200, 504, ...); a cancelled call answers its cancelled envelope. A call whose replica stopped answers `{ callId, status: "lost", error }`.'
})
const RUNNING = { ...CallRunning, description: 'The call runs (or waits for answers: `input_required`); `X-Call-Status` says which.' }

function getSchema (maxWaitS: number) {
  return {
    summary: 'Follow a call that runs on',
    description: `A call made with \`Prefer: respond-async\`: 202 with its state while it runs (its progress, or the questions it waits on: \`input_required\`), 200 with its answer once it ended. \`?wait=\` (seconds, at most calls.maxWaitS, ${maxWaitS} here) holds the request until the call ends, changes (progress, a question) or the time passes; a longer wait is cut to the maximum and the answer says so in \`X-Wait-Capped\`. Unknown, expired and other callers' calls answer 404 alike.`,
    tags: ['dispatch'],
    params: Params,
    querystring: Type.Object({
      wait: Type.Optional(Type.String({ maxLength: 32, description: `Seconds to wait for the call to end or change (a number, e.g. 30 or 2.5), at most ${maxWaitS}.` }))
    }, { additionalProperties: false }),
    response: { 200: ENDED, 202: RUNNING, 400: ERROR, 404: ERROR, 503: ERROR }
  }
}

const DELETE_SCHEMA = {
  summary: 'Cancel a call that runs on',
  description: 'The call\'s signal fires wherever it runs (its tool stops, a terminal command is killed). Answers as GET does once the call ended (200, its cancelled envelope), within a few seconds, else 202 with its state. A call that had ended already is left as it was. Unknown, expired and other callers\' calls answer 404 alike.',
  tags: ['dispatch'],
  params: Params,
  response: { 200: ENDED, 202: RUNNING, 404: ERROR, 503: ERROR }
}

const INPUT_SCHEMA = {
  summary: 'Answer the questions a call waits on',
  description: 'While a call is `input_required`, its `inputRequests` are questions keyed by the tool\'s own names; answer every one under the same key: an elicitation with `{ action: "accept", content }` (content as its requestedSchema asks), `{ action: "decline" }` or `{ action: "cancel" }`; a sampling with the message a model made; roots with `{ roots: [...] }`. Answers 202 with the call\'s state (running again), or 200 with its answer if it ended meanwhile. An answer to a question not waiting, a missing one or content that does not match its schema is a 400 naming the field.',
  tags: ['dispatch'],
  params: Params,
  body: Type.Object({
    inputResponses: Type.Record(Type.String(), Type.Object({}, { additionalProperties: true, description: 'One answer, as MCP defines the result of its request.' }), { description: 'The answers, keyed as the questions were.' })
  }, { additionalProperties: false }),
  response: { 200: ENDED, 202: RUNNING, 400: ERROR, 404: ERROR, 503: ERROR }
}

const callsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const book = app.detachedCalls
  const { maxWaitS } = app.gateway.config.calls

  app.get('/calls/:id', { schema: getSchema(maxWaitS) }, async (request, reply) => {
    const { id } = request.params
    const owner = ownerOf(request)
    const wanted = request.query.wait
    let view: CallView | undefined
    if (wanted === undefined) {
      view = await book.get(owner, id)
    } else {
      const seconds = waitSeconds(wanted)
      if (seconds > maxWaitS) reply.header('x-wait-capped', String(maxWaitS))
      view = await book.wait(owner, id, Math.min(seconds, maxWaitS) * 1000)
    }
    if (view === undefined) throw new CallNotFoundError(id)
    return answerCall(reply, view)
  })

  app.delete('/calls/:id', { schema: DELETE_SCHEMA }, async (request, reply) => {
    const { id } = request.params
    const owner = ownerOf(request)
    const cancelled = await book.cancel(owner, id)
    if (cancelled === undefined) throw new CallNotFoundError(id)
    const view = cancelled.status === 'running' || cancelled.status === 'input_required' || cancelled.status === 'pending_approval'
      ? await ended(owner, id, cancelled.updatedAt) ?? cancelled
      : cancelled
    return answerCall(reply, view)
  })

  app.post('/calls/:id/input', { schema: INPUT_SCHEMA }, async (request, reply) => {
    const { id } = request.params
    const view = await book.answer(ownerOf(request), id, request.body.inputResponses as InputResponses)
    if (view === undefined) throw new CallNotFoundError(id)
    return answerCall(reply, view)
  })

  /** The call once ended, within CANCEL_WAIT_MS; undefined when it is gone meanwhile. */
  async function ended (owner: string, id: string, since: string): Promise<CallView | undefined> {
    const deadline = Date.now() + CANCEL_WAIT_MS
    let view = await book.wait(owner, id, CANCEL_WAIT_MS, since)
    while (view !== undefined && (view.status === 'running' || view.status === 'input_required' || view.status === 'pending_approval') && Date.now() < deadline) {
      view = await book.wait(owner, id, deadline - Date.now(), view.updatedAt)
    }
    return view
  }
}

/** `?wait=` as seconds: a non-negative number, else a 400 naming it. */
function waitSeconds (text: string): number {
  const seconds = /^\s*\d{1,6}(\.\d{1,3})?\s*$/.test(text) ? Number(text) : Number.NaN
  if (Number.isNaN(seconds)) throw new BadRequestError(`wait must be a number of seconds, e.g. 30 or 2.5 (got ${JSON.stringify(text)})`)
  return seconds
}

export default callsRoutes
