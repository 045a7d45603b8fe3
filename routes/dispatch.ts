// POST /dispatch/:name runs one tool; POST /dispatch runs the tool_calls of an assistant message.
// Every answer is the envelope, whose `content` goes to the model as is. A caller that goes away
// aborts its calls; while the gateway drains, new calls get 503 with Retry-After.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { BadRequestError } from '../src/errors.ts'
import { mapWithConcurrency } from '../src/http/concurrency.ts'

const CallHeaders = Type.Object({
  'x-tool-call-id': Type.Optional(Type.String({ maxLength: 256, description: 'The model\'s tool call id, echoed in the envelope.' })),
  'x-session-id': Type.Optional(Type.String({ maxLength: 256, description: 'An agent session id, handed to the tool.' })),
  'x-tool-timeout-ms': Type.Optional(Type.String({ pattern: '^\\s*\\d{1,15}\\s*$', description: 'Deadline for this call in ms, capped by the configured maximum.' })),
  'x-max-result-chars': Type.Optional(Type.String({ pattern: '^\\s*\\d{1,15}\\s*$', description: 'Result size cap for this call, capped by the configured maximum.' }))
})

const Arguments = Type.Union([
  Type.Object({}, { additionalProperties: true, description: 'The arguments as a JSON object.' }),
  Type.String({ description: 'The arguments as the JSON string a model emits.' })
], { description: 'Tool arguments: an object, or a JSON string holding one.' })

const ToolCall = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 256, description: 'The tool call id from the model.' }),
  type: Type.Optional(Type.Literal('function', { description: 'Always "function".' })),
  function: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 256, description: 'The tool to run.' }),
    arguments: Type.Optional(Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })], {
      description: 'The arguments: the JSON string the model emitted (an object is accepted too).'
    }))
  }, { description: 'The function the model called.' })
}, { description: 'One tool call, exactly as in an assistant message.' })

const BatchBody = Type.Object({
  tool_calls: Type.Array(ToolCall, { minItems: 1, description: 'The tool_calls of the assistant message.' })
}, { description: 'A batch of tool calls.' })

const ToolMessage = Type.Object({
  role: Type.Literal('tool', { description: 'Always "tool".' }),
  tool_call_id: Type.String({ description: 'The id of the call this answers.' }),
  content: Type.String({ description: 'The result for the model.' })
}, { description: 'A Chat Completions tool message.' })

const BatchResponse = Type.Object({
  messages: Type.Array(ToolMessage, { description: 'One tool message per call, in input order.' }),
  results: Type.Array(Type.Ref('Envelope'), { description: 'The full envelope per call, in input order.' })
}, { description: 'The answers of a batch.' })

const ENVELOPE = Type.Ref('Envelope')
// Every status the contract (src/dispatch/outcome.ts) or the edge (auth, body, draining) can answer.
const CALL_RESPONSES = { 200: ENVELOPE, 400: ENVELOPE, 401: ENVELOPE, 403: ENVELOPE, 404: ENVELOPE, 413: ENVELOPE, 415: ENVELOPE, 499: ENVELOPE, 503: ENVELOPE, 504: ENVELOPE }
type CallResponseStatus = keyof typeof CALL_RESPONSES

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
  }, (request, reply) => {
    // Callback style, the answer sent in the turn the call ends: an async handler awaiting the
    // call costs promise hops on every dispatch.
    calls.start(request, request.params.name, request.body, request.headers['x-tool-call-id']).subscribe((outcome) => {
      try {
        // The Envelope response schema serialises only its own fields, so httpStatus stays internal.
        reply.code(outcome.httpStatus as CallResponseStatus).send(outcome)
      } catch (err) {
        // Runs inside the call's own settlement: a throw here must become an answer, not escape.
        if (!reply.sent) reply.send(err)
      }
    }, (err: unknown) => reply.send(err))
  })

  app.post('/dispatch', {
    config: { envelope: true, refusedWhileDraining: true },
    schema: {
      summary: 'Run the tool calls of an assistant message',
      description: 'Runs the calls concurrently (up to the configured limit) and answers one tool message per call in input order; one failing call never fails the batch.',
      tags: ['dispatch'],
      headers: CallHeaders,
      body: BatchBody,
      response: { 200: BatchResponse, 400: ENVELOPE, 401: ENVELOPE, 413: ENVELOPE, 415: ENVELOPE, 503: ENVELOPE }
    }
  }, async (request) => {
    const toolCalls = request.body.tool_calls
    if (toolCalls.length > maxBatchSize) {
      throw new BadRequestError(`a batch holds at most ${maxBatchSize} tool calls (got ${toolCalls.length})`)
    }
    const outcomes = await mapWithConcurrency(toolCalls, batchConcurrency, async (call) =>
      await calls.start(request, call.function.name, call.function.arguments, call.id))
    return {
      messages: outcomes.map((outcome, i) => ({ role: 'tool' as const, tool_call_id: toolCalls[i].id, content: outcome.content })),
      results: outcomes
    }
  })
}

export default dispatchRoutes
