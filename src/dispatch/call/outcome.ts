// The dispatch contract, in one place: the statuses a call ends with, the envelope every dispatch
// answers (one TypeBox schema for validation, serialisation, types and the OpenAPI document), the
// error code and HTTP status of each failure (from the error registry), and the one builder of
// envelopes, used by the dispatcher and by the HTTP error handler alike. What only a transport needs
// (the HTTP status, the media's data) goes beside the envelope (Dispatched), never inside it: the
// envelope is what is serialised, logged and kept for replays, whole and nothing more.
import { Type, type Static } from 'typebox'
import {
  BadRequestError, BlockedError, BodyTooLargeError, CancelledError, InternalError, InvalidArgumentsError, NotFoundError,
  OverloadedError, ApprovalPendingError, RateLimitedError, TimeoutError, ToolFailedError, ToolNotFoundError, ToolUnavailableError,
  UnauthorizedError, UnknownToolsetError, UnsupportedMediaTypeError
} from '../../shared/errors.ts'
import { toolError } from '../../registry/tool-result.ts'
import type { InputRequests, ToolMedia } from '../../registry/types.ts'
import { describeQuestions } from './questions.ts'
import type { CarriedMedia } from './media.ts'

/** How a call that reached its tool ended: what post_tool_call hooks observe. */
export const CALL_STATUSES = ['ok', 'error', 'blocked', 'timeout', 'cancelled', 'invalid'] as const
/** Every status of a dispatch: a call can also end before any tool, unknown or unavailable. */
export const DISPATCH_STATUSES = [...CALL_STATUSES, 'unavailable', 'not_found'] as const

/**
 * Every status an envelope can report: a call's end, or `input_required`, a call that waits for its
 * caller's answers (the tool asked: ctx.ask) and goes on when the caller sends the same call again
 * with them (src/calls); or `pending_approval`, a call held until a person approves it
 * (trust.approval), which runs when the same call is sent again once approved.
 */
export const ENVELOPE_STATUSES = [...DISPATCH_STATUSES, 'input_required', 'pending_approval'] as const

export type CallStatus = typeof CALL_STATUSES[number]
export type DispatchStatus = typeof DISPATCH_STATUSES[number]
export type FailedStatus = Exclude<DispatchStatus, 'ok'>

interface ErrorClass { readonly code: string, readonly statusCode: number }

/** Each failed status, as the error code and HTTP status the contract gives it (API.md). */
const FAILURES: Readonly<Record<FailedStatus, ErrorClass>> = {
  error: ToolFailedError,
  invalid: InvalidArgumentsError,
  blocked: BlockedError,
  not_found: ToolNotFoundError,
  unavailable: ToolUnavailableError,
  timeout: TimeoutError,
  cancelled: CancelledError
}

/**
 * The status an envelope reports for an error raised around the call rather than by it (auth, rate
 * limit, draining, a bad body), by that error's code. The dispatch failures map to their own status.
 */
const STATUS_OF_CODE: ReadonlyMap<string, FailedStatus> = new Map<string, FailedStatus>([
  ...Object.entries(FAILURES).map(([status, error]) => [error.code, status as FailedStatus] as const),
  [UnauthorizedError.code, 'blocked'],
  [NotFoundError.code, 'not_found'],
  [RateLimitedError.code, 'unavailable'],
  [OverloadedError.code, 'unavailable'],
  [InternalError.code, 'error'],
  [BadRequestError.code, 'invalid'],
  [BodyTooLargeError.code, 'invalid'],
  [UnsupportedMediaTypeError.code, 'invalid'],
  [UnknownToolsetError.code, 'invalid']
])

export const Envelope = Type.Object({
  tool: Type.String({ description: 'The tool name the caller asked for.' }),
  callId: Type.String({ description: 'X-Tool-Call-Id, or one the gateway made up.' }),
  ok: Type.Boolean({ description: 'True only when the tool ran and reported success.' }),
  status: Type.Enum([...ENVELOPE_STATUSES], { description: 'What happened to the call; `input_required`: it waits for the answers to `inputRequests`.' }),
  content: Type.String({ description: 'The exact string for the tool message to the model, also on errors ({"error": "..."}).' }),
  truncated: Type.Boolean({ description: 'Whether content was cut to the result size cap.' }),
  originalLength: Type.Integer({ description: 'Length of the result before truncation, in UTF-16 code units.' }),
  resultId: Type.Optional(Type.String({ description: 'When content was cut, or the result carries media, and the result is kept: its id for GET /results/:id (and the read_result tool) and GET /results/:id/media/:n, for the same API key, for a limited time.' })),
  media: Type.Optional(Type.Array(Type.Object({
    kind: Type.Enum(['image', 'audio'], { description: 'What the item is.' }),
    mimeType: Type.String({ description: 'Its type, e.g. image/png.' }),
    bytes: Type.Integer({ description: 'Its size in bytes.' }),
    url: Type.Optional(Type.String({ description: 'Where its bytes are fetched (GET, same API key), while the result is kept; absent when it was not kept.' }))
  }, { description: 'An image or a sound the tool returned.' }), { description: 'Present only when the tool returned images or audio (content carries a note naming each).' })),
  durationMs: Type.Integer({ description: 'Time spent in the gateway on this call, in ms.' }),
  error: Type.Optional(Type.Object({
    code: Type.String({ description: 'GW_ERR_* code of the failure.' }),
    message: Type.String({ description: 'Why the call failed.' })
  }, { description: 'Present only when the call failed (not while it waits for answers).' })),
  inputRequests: Type.Optional(Type.Record(Type.String(), Type.Object({
    method: Type.Enum(['elicitation/create', 'sampling/createMessage', 'roots/list'], { description: 'What kind of question: a form or URL for the user, a completion from the caller\'s model, the caller\'s roots.' }),
    params: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'As MCP 2026-07-28 defines them for the method (an elicitation\'s message and requestedSchema).' }))
  }), { description: 'With status input_required: the questions, keyed; answer each under its key in inputResponses.' })),
  requestState: Type.Optional(Type.String({ description: 'With status input_required: send it back, unchanged, with inputResponses to go on with the call.' })),
  approvalId: Type.Optional(Type.String({ description: 'With status pending_approval: the approval a person decides (POST /admin/approvals/{approvalId}); the same call sent again once it is approved runs, once.' }))
}, { $id: 'Envelope', description: 'The answer to every dispatch, success or not.' })

/** The envelope of one call: exactly what every answer serialises. */
export type DispatchOutcome = Static<typeof Envelope>

/** What a dispatch returns: the envelope, and beside it what only the transports read. */
export interface Dispatched {
  readonly outcome: DispatchOutcome
  /** The HTTP status the contract gives the outcome (POST /dispatch/:name answers with it). */
  readonly httpStatus: number
  /** The images and sounds with their data, for the answers that carry them inline (dialects, MCP); absent without media. */
  readonly inlineMedia?: readonly ToolMedia[]
}

/** What the steps of the pipeline pass back up before the outcome is built. */
export interface StepResult {
  status: DispatchStatus
  content: string
  /** Why it failed, for `error.message` (content carries the model's copy). */
  message?: string
  truncated?: boolean
  originalLength?: number
  /** Where the full text of a cut result is kept (result store). */
  resultId?: string
  /** The images and sounds of a successful result, checked (src/dispatch/call/media.ts). */
  media?: CarriedMedia[]
  /** The owner of the pre_tool_call hook that blocked the call (for post_tool_call; never serialised). */
  blockedBy?: string
  /** A finer kind of failure than the status's code, for post_tool_call's error_type (never serialised). */
  errorType?: string
  /** A blocked call held for a person's approval: its id (the envelope says `pending_approval`). */
  pendingApproval?: string
}

/**
 * A failed step: the model reads `{"error": message}` (with `fields` beside it), and the
 * envelope's error says the same.
 */
export function failed (status: FailedStatus, message: string, fields?: Record<string, unknown>): StepResult {
  return { status, content: toolError(message, fields), message }
}

/** The GW_ERR_* code a failed status carries (what post_tool_call hooks get as error_type by default). */
export function errorCodeOf (status: FailedStatus): string {
  return FAILURES[status].code
}

/** The envelope status for an error raised around a call, by its code (else by its HTTP status). */
export function statusOfError (code: string, httpStatus: number): FailedStatus {
  return STATUS_OF_CODE.get(code) ?? (httpStatus >= 500 ? 'error' : 'invalid')
}

/**
 * The one envelope builder. A failed result takes the error code of its status, unless `raised`
 * names the error that ended the call around it (then its own code).
 */
export function buildOutcome (tool: string, callId: string, result: StepResult, durationMs: number, raised?: ErrorClass): DispatchOutcome {
  const outcome: DispatchOutcome = {
    tool,
    callId,
    ok: result.status === 'ok',
    status: result.status,
    content: result.content,
    truncated: result.truncated ?? false,
    originalLength: result.originalLength ?? result.content.length,
    durationMs
  }
  if (result.resultId !== undefined) outcome.resultId = result.resultId
  if (result.media !== undefined) {
    outcome.media = result.media.map(({ kind, mimeType, bytes, url }) => url === undefined ? { kind, mimeType, bytes } : { kind, mimeType, bytes, url })
  }
  if (result.status !== 'ok') {
    const failure = raised ?? (result.pendingApproval === undefined ? FAILURES[result.status] : ApprovalPendingError)
    outcome.error = { code: failure.code, message: result.message ?? errorMessageOf(result.content) }
  }
  if (result.pendingApproval !== undefined) Object.assign(outcome, { status: 'pending_approval', approvalId: result.pendingApproval })
  return outcome
}

/** A dispatch's answer: the envelope of `result`, its HTTP status, and its media's data beside it. */
export function dispatched (tool: string, callId: string, result: StepResult, durationMs: number): Dispatched {
  const outcome = buildOutcome(tool, callId, result, durationMs)
  const httpStatus = result.status === 'ok' ? 200 : result.pendingApproval === undefined ? FAILURES[result.status].statusCode : ApprovalPendingError.statusCode
  return result.media === undefined ? { outcome, httpStatus } : { outcome, httpStatus, inlineMedia: result.media }
}

/**
 * The envelope of a call that waits for its caller's answers. `content` tells a model reading it
 * what is asked; the questions themselves are in `inputRequests`, answered by sending the call
 * again with `inputResponses` and this `requestState`.
 */
export function inputRequiredOutcome (tool: string, callId: string, inputRequests: InputRequests, requestState: string, durationMs: number): DispatchOutcome {
  const content = JSON.stringify({ input_required: describeQuestions(inputRequests) })
  return { tool, callId, ok: false, status: 'input_required', content, truncated: false, originalLength: content.length, durationMs, inputRequests, requestState }
}

/** The `error` field of a `{"error": ...}` result, or the content itself. */
export function errorMessageOf (content: string): string {
  try {
    const parsed = JSON.parse(content) as { error?: unknown }
    if (typeof parsed?.error === 'string') return parsed.error
  } catch {}
  return Array.from(content).slice(0, 2000).join('')
}
