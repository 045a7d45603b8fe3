// POST /dispatch/:name runs one tool; POST /dispatch runs the tool calls of a model turn, in the
// dialect they came in (src/dispatch/dialects).
// Every answer is the envelope, whose `content` goes to the model as is. A caller that goes away
// aborts its calls (unless they carry an Idempotency-Key: src/http/idempotency.ts); while the
// gateway drains, new calls get 503 with Retry-After.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { BadRequestError } from '../src/shared/errors.ts'
import { answerBatch, BatchAnswer, BatchBody, parseBatch } from '../src/dispatch/dialects/index.ts'
import { mapWithConcurrency } from '../src/http/concurrency.ts'
import { headerValidator } from '../src/http/header-validator.ts'
import { answerOnce } from '../src/http/idempotency.ts'

const CallHeaders = Type.Object({
  'x-tool-call-id': Type.Optional(Type.String({ maxLength: 256, description: 'The model\'s tool call id, echoed in the envelope.' })),
  'x-session-id': Type.Optional(Type.String({ maxLength: 256, description: 'An agent session id, handed to the tool.' })),
  'x-tool-timeout-ms': Type.Optional(Type.String({ pattern: '^\\s*\\d{1,15}\\s*$', description: 'Deadline for this call in ms, capped by the configured maximum.' })),
  'x-max-result-chars': Type.Optional(Type.String({ pattern: '^\\s*\\d{1,15}\\s*$', description: 'Result size cap for this call, capped by the configured maximum.' })),
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
// Every status the contract (src/dispatch/call/outcome.ts) or the edge (auth, body, draining) can answer.
const CALL_RESPONSES = { 200: ENVELOPE, 400: ENVELOPE, 401: ENVELOPE, 403: ENVELOPE, 404: ENVELOPE, 413: ENVELOPE, 415: ENVELOPE, 422: ENVELOPE, 499: ENVELOPE, 503: ENVELOPE, 504: ENVELOPE }

const dispatchRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { calls, gateway } = app
  const { batchConcurrency, maxBatchSize } = gateway.config.http

  app.post('/dispatch/:name', {
    config: { envelope: true, refusedWhileDraining: true },
    schema: {
      summary: 'Run one tool',
      description: 'The body is the arguments (an object, or the JSON string a model emits). Every answer is the envelope; its `content` is the tool message for the model.',
      tags: ['dispatch'],
      params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 256, description: 'The tool name.' }) }),
      headers: CallHeaders,
      body: Arguments,
      response: CALL_RESPONSES
    }
  }, async (request, reply) => {
    const { name } = request.params
    return await answerOnce(request, reply, `dispatch/${name}`, async (detached) => {
      const { outcome, httpStatus } = await calls.start(request, name, request.body, request.headers['x-tool-call-id'], detached)
      return { status: httpStatus, payload: outcome }
    })
  })

  app.post('/dispatch', {
    config: { envelope: true, refusedWhileDraining: true },
    // The body is read by parseBatch, whose 400 names the dialect and the accepted shapes; a schema
    // union would only say that no branch matched. The schema stays, for the OpenAPI document.
    validatorCompiler: ({ schema, httpPart }) => httpPart === 'body' ? () => true : headerValidator(schema),
    schema: {
      summary: 'Run the tool calls of a model turn, in any dialect',
      description: 'Runs the tool calls of a model turn (Chat tool_calls, Responses function_call items, Anthropic tool_use blocks or Gemini functionCall parts; the dialect is read from the shape) concurrently up to the configured limit, or in order with `parallel: false`, and answers one result per call in the same dialect, in input order; one failing call never fails the batch.',
      tags: ['dispatch'],
      headers: CallHeaders,
      body: BatchBody,
      response: { 200: BatchAnswer, 400: ENVELOPE, 401: ENVELOPE, 413: ENVELOPE, 415: ENVELOPE, 422: ENVELOPE, 499: ENVELOPE, 503: ENVELOPE }
    }
  }, async (request, reply) => await answerOnce(request, reply, 'dispatch', async (detached) => {
    const batch = parseBatch(request.body)
    if (batch.calls.length > maxBatchSize) {
      throw new BadRequestError(`a batch holds at most ${maxBatchSize} tool calls (got ${batch.calls.length})`)
    }
    const answers = await mapWithConcurrency(batch.calls, batch.sequential ? 1 : batchConcurrency, async (call) =>
      await calls.start(request, call.name, call.args, call.id, detached))
    return { status: 200, payload: answerBatch(batch, answers) }
  }))
}

export default dispatchRoutes
