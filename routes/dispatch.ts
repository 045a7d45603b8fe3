// POST /dispatch/:name runs one tool; POST /dispatch runs the tool calls of a model turn, in the
// dialect they came in (src/dispatch/dialects).
// Every answer is the envelope, whose `content` goes to the model as is. A caller that goes away
// aborts its calls (unless they carry an Idempotency-Key: src/http/idempotency.ts); while the
// gateway drains, new calls get 503 with Retry-After. `Prefer: respond-async` answers 202 at once
// and the call runs on (src/http/async-calls.ts, routes/calls.ts); `Accept: text/event-stream`
// streams its progress, then its envelope (src/http/event-stream.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { BadRequestError } from '../src/shared/errors.ts'
import { clipText } from '../src/shared/clip-text.ts'
import { answerBatch, BatchBody, parseBatch, type ParsedBatch } from '../src/dispatch/dialects/index.ts'
import { answerHeld } from '../src/http/approval-calls.ts'
import { answerAsync, prefersAsync } from '../src/http/async-calls.ts'
import { CallRunning, ownerOf } from '../src/http/call-answers.ts'
import { mapWithConcurrency } from '../src/http/concurrency.ts'
import { streamCall, wantsEventStream } from '../src/http/event-stream.ts'
import { headerValidator } from '../src/http/header-validator.ts'
import { answerOnce } from '../src/http/idempotency.ts'
import { answerAsking, answerRetry, REQUEST_STATE_HEADER } from '../src/http/sync-questions.ts'

const CallHeaders = Type.Object({
  'x-tool-call-id': Type.Optional(Type.String({ maxLength: 256, description: 'The model\'s tool call id, echoed in the envelope.' })),
  'x-session-id': Type.Optional(Type.String({ maxLength: 256, description: 'An agent session id, handed to the tool.' })),
  'x-tool-timeout-ms': Type.Optional(Type.String({ pattern: '^\\s*\\d{1,15}\\s*$', description: 'Deadline for this call in ms, capped by the configured maximum.' })),
  'x-max-result-chars': Type.Optional(Type.String({ pattern: '^\\s*\\d{1,15}\\s*$', description: 'Result size cap for this call, capped by the configured maximum.' })),
  [REQUEST_STATE_HEADER]: Type.Optional(Type.String({ maxLength: 256, description: 'Goes on with a call whose envelope said `input_required`: its `requestState`, unchanged; the body is then `{ "inputResponses": { ... } }`, an answer per question under its key (the call keeps its arguments). Answered like the first call: the result, or the next question.' })),
  prefer: Type.Optional(Type.String({ maxLength: 1024, description: '`respond-async` (RFC 7240): answer 202 at once with the call\'s id, and let it run on; follow it with GET /calls/{callId}.' })),
  'idempotency-key': Type.Optional(Type.String({
    pattern: '^[\\x21-\\x7E]{1,255}$',
    description: 'Makes a retry safe: the same key with the same request (tool, body, call headers) within idempotency.ttlMs answers the first answer again, with `Idempotent-Replayed: true`, without running the tool again; a duplicate sent while the first runs waits for it; the same key with another request is a 422. Keys are per API key. 1 to 255 visible ASCII characters (a UUID is a good key). A call with a key is not cancelled when its client goes away.'
  }))
})

const Arguments = Type.Union([
  Type.Object({}, { additionalProperties: true, description: 'The arguments as a JSON object.' }),
  Type.String({ description: 'The arguments as the JSON string a model emits.' })
], { description: 'Tool arguments: an object, or a JSON string holding one.' })

const ENVELOPE = Type.Ref('Envelope')
const ACCEPTED = { ...CallRunning, description: 'With `Prefer: respond-async`: the call runs on; `Location: /calls/{callId}` says where to follow it, `Preference-Applied: respond-async` that it was. A call of a tool that waits for a person\'s approval (trust.approval) is answered so too, without the header: `status: "pending_approval"` with its `approvalId`.' }
// Every status the contract (src/dispatch/call/outcome.ts) or the edge (auth, body, draining) can
// answer; 429 also when the caller has calls.maxRunningPerCaller calls running in the background.
const REFUSALS = { 400: ENVELOPE, 401: ENVELOPE, 413: ENVELOPE, 415: ENVELOPE, 422: ENVELOPE, 429: ENVELOPE, 499: ENVELOPE, 503: ENVELOPE }
const CALL_RESPONSES = {
  200: {
    description: 'The envelope; with `Accept: text/event-stream` (and not application/json) an event stream instead: `event: progress` as the tool reports, the envelope as the last event, `event: result`.',
    content: {
      'application/json': { schema: ENVELOPE },
      'text/event-stream': { schema: Type.String({ description: 'Server-Sent Events: `event: progress` (data: { progress, total?, message? }), then `event: result` (data: the envelope); comments keep it alive.' }) }
    }
  },
  202: ACCEPTED,
  ...REFUSALS,
  403: ENVELOPE,
  404: ENVELOPE,
  504: ENVELOPE
}

const ONE = {
  config: { envelope: true, refusedWhileDraining: true },
  schema: {
    summary: 'Run one tool',
    description: 'The body is the arguments (an object, or the JSON string a model emits). Every answer is the envelope; its `content` is the tool message for the model. A tool that asks its caller a question answers `status: "input_required"` with `inputRequests` and a `requestState`: send the call again with `X-Request-State` and `{ "inputResponses": ... }`. `Prefer: respond-async` answers 202 at once and the call runs on (GET /calls/{callId}); `Accept: text/event-stream` streams its progress, then its envelope.',
    tags: ['dispatch'],
    params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 256, description: 'The tool name.' }) }),
    headers: CallHeaders,
    body: Arguments,
    response: CALL_RESPONSES
  }
}

const BATCH = {
  config: { envelope: true, refusedWhileDraining: true },
  // The body is read by parseBatch, whose 400 names the dialect and the accepted shapes; a schema
  // union would only say that no branch matched. The schema stays, for the OpenAPI document.
  validatorCompiler: ({ schema, httpPart }: { schema: object, httpPart?: string }) => httpPart === 'body' ? () => true : headerValidator(schema),
  schema: {
    summary: 'Run the tool calls of a model turn, in any dialect',
    description: 'Runs the tool calls of a model turn (Chat tool_calls, Responses function_call items, Anthropic tool_use blocks or Gemini functionCall parts; the dialect is read from the shape) concurrently up to the configured limit, or in order with `parallel: false`, and answers one result per call in the same dialect, in input order; one failing call never fails the batch. `Prefer: respond-async` answers 202 at once and the batch runs on (GET /calls/{callId} answers the batch answer once every call ended).',
    tags: ['dispatch'],
    headers: CallHeaders,
    body: BatchBody,
    response: { 200: Type.Ref('BatchAnswer'), 202: ACCEPTED, ...REFUSALS }
  }
}

const dispatchRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { approvals, calls, gateway } = app
  const { batchConcurrency, maxBatchSize } = gateway.config.http

  app.post('/dispatch/:name', ONE, async (request, reply) => {
    const { name } = request.params
    const { prefer, accept } = request.headers
    const requestState = request.headers[REQUEST_STATE_HEADER]
    // A call held for approval runs on, waiting for the decision; its 202 says pending_approval,
    // with or without Prefer: respond-async.
    const gated = requestState === undefined && approvals.gated(name)
    if (gated || (prefer !== undefined && prefersAsync(prefer))) {
      return await (gated ? answerHeld : answerAsync)(request, reply, `dispatch/${name}`, name, async (held) => {
        // Without X-Tool-Call-Id the envelope carries the call's own id.
        const extras = { signal: held.signal, onProgress: held.progress, ask: held.ask, approve: approvals.waiting(ownerOf(request), held) }
        const { outcome, httpStatus } = await calls.start(request, name, request.body, request.headers['x-tool-call-id'] ?? held.callId, true, extras)
        return { status: httpStatus, payload: outcome }
      })
    }
    if (accept !== undefined && wantsEventStream(accept)) {
      return await streamCall(request, reply, `dispatch/${name}`, async (onProgress, detached) => {
        const { outcome, httpStatus } = await calls.start(request, name, request.body, request.headers['x-tool-call-id'], detached, { onProgress })
        return { status: httpStatus, payload: outcome }
      })
    }
    return await answerOnce(request, reply, `dispatch/${name}`, async (detached) => requestState === undefined
      ? await answerAsking(request, name, request.body, request.headers['x-tool-call-id'], detached)
      : await answerRetry(request, name, requestState, request.body))
  })

  app.post('/dispatch', BATCH, async (request, reply) => {
    const { prefer } = request.headers
    if (prefer === undefined || !prefersAsync(prefer)) {
      return await answerOnce(request, reply, 'dispatch', async (detached) => {
        const batch = readBatch(request.body, maxBatchSize)
        const answers = await mapWithConcurrency(batch.calls, batch.sequential ? 1 : batchConcurrency, async (call) =>
          await calls.start(request, call.name, call.args, call.id, detached))
        return { status: 200, payload: answerBatch(batch, answers) }
      })
    }
    // Read before the 202: a batch that cannot run is a 400 now.
    const batch = readBatch(request.body, maxBatchSize)
    return await answerAsync(request, reply, 'dispatch', batchName(batch), async (held) => {
      let done = 0
      const answers = await mapWithConcurrency(batch.calls, batch.sequential ? 1 : batchConcurrency, async (call) => {
        const answer = await calls.start(request, call.name, call.args, call.id, true, { signal: held.signal })
        held.progress({ progress: ++done, total: batch.calls.length, message: `${done} of ${batch.calls.length} calls ended` })
        return answer
      })
      return { status: 200, payload: answerBatch(batch, answers) }
    })
  })
}

function readBatch (body: unknown, maxBatchSize: number): ParsedBatch {
  const batch = parseBatch(body)
  if (batch.calls.length > maxBatchSize) {
    throw new BadRequestError(`a batch holds at most ${maxBatchSize} tool calls (got ${batch.calls.length})`)
  }
  return batch
}

/** What GET /calls/:id names a batch by: `batch: ` and its tools, each once. */
function batchName (batch: ParsedBatch): string {
  return clipText(`batch: ${[...new Set(batch.calls.map((call) => call.name))].join(', ')}`, 200)
}

export default dispatchRoutes
