// POST /dispatch/:name runs one tool; POST /dispatch runs the tool_calls of an assistant message.
// Every answer is the envelope, whose `content` goes to the model as is. A caller that goes away
// aborts its calls; while the gateway drains, new calls get 503 with Retry-After.
import type { Socket } from 'node:net'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import { Type } from 'typebox'
import { Cancellation } from '../src/dispatch/cancellation.ts'
import type { DispatchOutcome } from '../src/dispatch/outcome.ts'
import type { Pending } from '../src/dispatch/pending.ts'
import type { DispatchRequest } from '../src/dispatch/pipeline.ts'
import { BadRequestError } from '../src/errors.ts'
import { allowedTools, mayUse } from '../src/http/access.ts'
import { numericHeader } from '../src/http/query.ts'
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

export default async function dispatchRoutes (app: FastifyInstance): Promise<void> {
  const { gateway, lifecycle, metrics } = app
  const batchLimit = gateway.config.http.batchConcurrency
  const shutdown = gateway.shutdownSignal

  // One cancellation per connection, shared by the calls of its requests (a call unsubscribes when
  // it ends): it fires when the client goes away (HTTP/1.1: the connection closes) or on shutdown.
  // A signal per request (AbortSignal.any, or a listener each on the shared signal) cost ~10-20 µs
  // of CPU per dispatch on Node 20, and even a 'close' listener per response showed under load.
  const connections = new Set<Cancellation>()
  shutdown.addEventListener('abort', () => {
    for (const cancellation of connections) cancellation.cancel(shutdown.reason)
  }, { once: true })
  // Keyed weakly by socket; `connections` loses an entry when its socket closes (inject()'s mock
  // sockets never do, so apps driven only by inject keep a small object per request).
  const bySocket = new WeakMap<Socket, Cancellation>()

  function cancellationOf (request: FastifyRequest): Cancellation {
    const socket = request.raw.socket
    const known = bySocket.get(socket)
    if (known !== undefined) return known
    const cancellation = new Cancellation()
    bySocket.set(socket, cancellation)
    if (shutdown.aborted) {
      cancellation.cancel(shutdown.reason)
      return cancellation
    }
    connections.add(cancellation)
    socket.once('close', () => {
      connections.delete(cancellation)
      cancellation.cancel(new Error('the client closed the connection'))
    })
    return cancellation
  }

  /** Counts a call in and starts it; whoever takes the outcome calls `ended` with it. */
  function start (request: FastifyRequest, name: string, args: unknown, callId: string | undefined, cancellation: Cancellation,
    allowed: ReadonlySet<string> | undefined): Pending<DispatchOutcome> {
    const headers = request.headers
    // Read before the call is counted in: a bad header throws here.
    const call: DispatchRequest = {
      name,
      // Outside the caller's toolsets a tool does not exist for it: the same answer as an unknown one.
      visible: allowed === undefined ? undefined : (tool) => mayUse(allowed, tool),
      args,
      callId,
      sessionId: headers['x-session-id'] as string | undefined,
      cancellation,
      timeoutMs: numericHeader(headers, 'x-tool-timeout-ms'),
      maxResultChars: numericHeader(headers, 'x-max-result-chars'),
      logger: request.log as unknown as Logger
    }
    lifecycle.enter()
    metrics.callStarted()
    return gateway.dispatcher.start(call)
  }

  /** Counts a call out (no outcome: the dispatcher failed, which it never should). */
  function ended (outcome: DispatchOutcome | undefined): void {
    metrics.callEnded(outcome)
    lifecycle.leave()
  }

  function run (request: FastifyRequest, name: string, args: unknown, callId: string | undefined, cancellation: Cancellation,
    allowed: ReadonlySet<string> | undefined): Promise<DispatchOutcome> {
    return start(request, name, args, callId, cancellation, allowed).then((outcome) => {
      ended(outcome)
      return outcome
    }, (err: unknown) => {
      ended(undefined)
      throw err
    })
  }

  app.post<{ Params: { name: string }, Body: unknown }>('/dispatch/:name', {
    config: { envelope: true, refusedWhileDraining: true },
    schema: {
      summary: 'Run one tool',
      description: 'The body is the arguments (an object, or the JSON string a model emits). Every answer is the envelope; its `content` is the tool message for the model.',
      tags: ['dispatch'],
      params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 256, description: 'The tool name.' }) }),
      headers: CallHeaders,
      body: Arguments,
      response: {
        200: Type.Ref('Envelope'),
        400: Type.Ref('Envelope'),
        401: Type.Ref('Envelope'),
        403: Type.Ref('Envelope'),
        404: Type.Ref('Envelope'),
        413: Type.Ref('Envelope'),
        415: Type.Ref('Envelope'),
        499: Type.Ref('Envelope'),
        503: Type.Ref('Envelope'),
        504: Type.Ref('Envelope')
      }
    }
  }, (request, reply) => {
    const allowed = allowedTools(gateway, request.principal)
    const callId = request.headers['x-tool-call-id'] as string | undefined
    // Callback style, the answer sent in the turn the call ends: an async handler awaiting the
    // call costs promise hops on every dispatch.
    start(request, request.params.name, request.body, callId, cancellationOf(request), allowed).subscribe((outcome) => {
      ended(outcome)
      try {
        // The Envelope response schema serialises only its own fields, so httpStatus stays internal.
        reply.code(outcome.httpStatus).send(outcome)
      } catch (err) {
        // Runs inside the call's own settlement: a throw here must become an answer, not escape.
        if (!reply.sent) reply.send(err)
      }
    }, (err: unknown) => {
      ended(undefined)
      reply.send(err)
    })
  })

  app.post<{ Body: { tool_calls: Array<{ id: string, function: { name: string, arguments?: unknown } }> } }>('/dispatch', {
    config: { envelope: true, refusedWhileDraining: true },
    schema: {
      summary: 'Run the tool calls of an assistant message',
      description: 'Runs the calls concurrently (up to the configured limit) and answers one tool message per call in input order; one failing call never fails the batch.',
      tags: ['dispatch'],
      headers: CallHeaders,
      body: BatchBody,
      response: { 200: BatchResponse, 400: Type.Ref('Envelope'), 401: Type.Ref('Envelope'), 413: Type.Ref('Envelope'), 415: Type.Ref('Envelope'), 503: Type.Ref('Envelope') }
    }
  }, async (request, reply) => {
    const calls = request.body.tool_calls
    if (calls.length > gateway.config.http.maxBatchSize) {
      throw new BadRequestError(`a batch holds at most ${gateway.config.http.maxBatchSize} tool calls (got ${calls.length})`)
    }
    const allowed = allowedTools(gateway, request.principal)
    const cancellation = cancellationOf(request)
    const outcomes = await mapWithConcurrency(calls, batchLimit, (call) =>
      run(request, call.function.name, call.function.arguments, call.id, cancellation, allowed))
    return {
      messages: outcomes.map((outcome, i) => ({ role: 'tool' as const, tool_call_id: calls[i].id, content: outcome.content })),
      results: outcomes
    }
  })
}
