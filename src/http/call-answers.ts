// How a call that outlives its request is answered over REST (Prefer: respond-async, GET, DELETE
// and POST /calls/:id/input): 202 with its state while it runs or waits for answers; once ended,
// 200 with what a synchronous call would have answered (its envelope, a batch's answer), the
// status that call would have had in X-Dispatch-Status; a call whose replica died, 200 `lost`.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { CallView } from '../calls/call-record.ts'

/** Whose calls a request sees: the API key's name, `user:<sub>`, or `anonymous` on an open gateway. */
export function ownerOf (request: FastifyRequest): string {
  return request.principal?.name ?? 'anonymous'
}

const Times = {
  createdAt: Type.String({ description: 'When the call started (ISO 8601).' }),
  updatedAt: Type.String({ description: 'When its record last changed: a new value means news (progress, a question, its end).' }),
  expiresAt: Type.String({ description: 'When its record will be forgotten (calls.ttlMs after its last change; kept while it runs).' })
}

export const CallRunning = Type.Object({
  callId: Type.String({ description: 'The call\'s id: GET, DELETE /calls/{callId} and POST /calls/{callId}/input.' }),
  tool: Type.String({ description: 'The tool called (for a batch: `batch: ` and the tools\' names).' }),
  status: Type.Enum(['running', 'input_required', 'pending_approval'], { description: '`running`; `input_required`: the tool asked the questions of inputRequests and waits for POST /calls/{callId}/input; `pending_approval`: the call waits for a person to approve it (approvalId; trust.approval).' }),
  approvalId: Type.Optional(Type.String({ description: 'While pending_approval: the approval an operator decides with POST /admin/approvals/{approvalId}.' })),
  progress: Type.Optional(Type.Object({
    progress: Type.Number({ description: 'How far the tool has got.' }),
    total: Type.Optional(Type.Number({ description: 'The progress at which it is done, when known.' })),
    message: Type.Optional(Type.String({ description: 'What it is doing.' }))
  }, { description: 'The tool\'s latest progress report, if it made one.' })),
  inputRequests: Type.Optional(Type.Record(Type.String(), Type.Object({
    method: Type.Enum(['elicitation/create', 'sampling/createMessage', 'roots/list'], { description: 'What is asked: a form or a URL for the user, a completion from the caller\'s model, the caller\'s roots.' }),
    params: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'The request\'s params as MCP defines them (an elicitation\'s message and requestedSchema, ...).' }))
  }, { description: 'One question.' }), { description: 'While input_required: the questions, keyed by the tool\'s own names; answer each under the same key.' })),
  ...Times
}, { description: 'A call still running (202).' })

export const CallLost = Type.Object({
  callId: Type.String({ description: 'The call\'s id.' }),
  tool: Type.String({ description: 'The tool called.' }),
  status: Type.Literal('lost', { description: 'The call will never end: the replica that ran it stopped, or its answer was too large to keep.' }),
  error: Type.String({ description: 'Why, for a person.' }),
  ...Times
}, { description: 'A call that was lost (200).' })

/** The 202 body of a running call. */
export function runningBody (view: CallView): Record<string, unknown> {
  const { callId, tool, status, progress, inputRequests, approvalId, createdAt, updatedAt, expiresAt } = view
  const body: Record<string, unknown> = { callId, tool, status }
  if (approvalId !== undefined) body.approvalId = approvalId
  if (progress !== undefined) body.progress = progress
  if (inputRequests !== undefined) body.inputRequests = inputRequests
  return Object.assign(body, { createdAt, updatedAt, expiresAt })
}

/** Sets the status and headers of the answer about `view`, and returns its body. */
export function answerCall (reply: FastifyReply, view: CallView): unknown {
  reply.header('x-call-status', view.status)
  if (view.status === 'running' || view.status === 'input_required' || view.status === 'pending_approval') {
    reply.code(202).header('location', `/calls/${view.callId}`)
    return runningBody(view)
  }
  if (view.status === 'lost' || view.answer === undefined) {
    const { callId, tool, createdAt, updatedAt, expiresAt } = view
    return { callId, tool, status: 'lost', error: view.error ?? 'the call ended without an answer', createdAt, updatedAt, expiresAt }
  }
  // 200 whatever the call's own status: the request for the call succeeded, the envelope says how the call went.
  reply.code(200).header('x-dispatch-status', String(view.answer.status))
  return view.answer.payload
}
