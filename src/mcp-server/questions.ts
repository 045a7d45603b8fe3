// A tool's questions (ctx.ask) put to an MCP client. Every revision gets them the 2026-07-28 way: a
// tools/call answered `input_required` with the questions and a requestState, answered by the client
// sending the call again with `inputResponses` and that state (src/calls/question-relay.ts holds the
// call meanwhile, on a book every replica reads). A 2025 session gets them as `elicitation/create`
// (sampling, roots) requests instead: the SDK's legacy shim turns an input_required answer into those
// requests and calls the handler again with the answers. A client that declared no capability for
// a question cannot be asked it: the tool is told so (GW_ERR_INPUT_UNSUPPORTED), naming the question.
import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, ProtocolErrorCode, type CallToolResult, type ClientCapabilities } from '@modelcontextprotocol/server'
import type { FastifyInstance } from 'fastify'
import type { Caller } from '../access/caller.ts'
import { firstTurn, nextTurn, type Asker, type Turn } from '../calls/question-relay.ts'
import { describeQuestions, capabilityOf } from '../dispatch/call/questions.ts'
import type { Dispatched, DispatchOutcome } from '../dispatch/call/outcome.ts'
import type { InputRequest, InputRequests } from '../registry/types.ts'
import { InputUnsupportedError } from '../shared/errors.ts'
import type { Task } from './task-view.ts'
import { isRecord } from '../shared/objects.ts'
import { lostAnswer } from '../http/sync-questions.ts'
import { callResultOf } from './call-result.ts'
import { ownerOf } from './owner.ts'

/** What a client declared it can answer: the request's own capabilities (2026-07-28), else its session's. */
export function capabilitiesOf (meta: Readonly<Record<string, unknown>> | undefined, session: ClientCapabilities | undefined): ClientCapabilities | undefined {
  const declared = meta?.[CLIENT_CAPABILITIES_META_KEY]
  return isRecord(declared) ? declared as ClientCapabilities : session
}

/** The capability `request` needs that `capabilities` lacks, as a dotted name; undefined when it has it. */
function missingFor (request: InputRequest, capabilities: ClientCapabilities | undefined): string | undefined {
  const needed = capabilityOf(request)
  const declared = capabilities?.[needed]
  if (!isRecord(declared)) return needed
  // A URL elicitation needs `elicitation.url`; an empty elicitation object means forms only.
  if (needed === 'elicitation' && request.params?.mode === 'url' && !isRecord((declared as Record<string, unknown>).url)) return 'elicitation.url'
  return undefined
}

/** Throws, naming what the tool asked and what the client lacks, when it cannot answer every question. */
export function checkAnswerable (tool: string, requests: InputRequests, capabilities: ClientCapabilities | undefined): void {
  const missing = [...new Set(Object.values(requests).map((request) => missingFor(request, capabilities)).filter((name) => name !== undefined))]
  if (missing.length === 0) return
  throw new InputUnsupportedError(`Tool ${tool} asked its caller (${describeQuestions(requests)}), and this MCP client cannot answer: it declared no ${missing.join(', ')} capability`)
}

/** A tools/call of one MCP request: its arguments, and the answers and state when it goes on with a call that asked. */
export interface AskingCall {
  name: string
  arguments?: unknown
  inputResponses?: unknown
  requestState?: string
  capabilities?: ClientCapabilities
  /** The message's own cancellation (notifications/cancelled, its stream closing). */
  signal?: AbortSignal
  onProgress?: (update: { progress: number, total?: number, message?: string }) => void
  /** Runs the call with the signal and asker given, the rest as `callTool` does. */
  run: (signal: AbortSignal, ask: Asker) => Promise<Dispatched>
}

/** What the client is answered: a tool result, or the questions (MCP's InputRequiredResult fields). */
export type McpTurn =
  | { kind: 'result', result: CallToolResult }
  | { kind: 'input_required', inputRequests: InputRequests, requestState: string }
  | { kind: 'task', task: Task }

function mcpTurnOf (turn: Turn): McpTurn {
  if (turn.kind === 'question') return { kind: 'input_required', inputRequests: turn.inputRequests, requestState: turn.requestState }
  return { kind: 'result', result: callResultOf({ outcome: turn.answer.payload as DispatchOutcome, httpStatus: turn.answer.status }) }
}

/**
 * Runs `call`, or goes on with the call its requestState names; undefined when that call is
 * unknown to this caller (expired, another key's, never made).
 */
export async function runAsking (app: FastifyInstance, caller: Caller, call: AskingCall): Promise<McpTurn | undefined> {
  const book = app.detachedCalls
  if (call.requestState !== undefined) {
    const turn = await nextTurn(book, ownerOf(caller), call.name, call.requestState, call.inputResponses ?? {}, lostAnswer, call.signal)
    return turn === undefined ? undefined : mcpTurnOf(turn)
  }
  // The answer of a call that never asked comes straight back, with the data of its images.
  let direct: Dispatched | undefined
  const turn = await firstTurn(book, { owner: ownerOf(caller), tool: call.name }, call.signal, async (signal, ask) => {
    direct = await call.run(signal, async (requests, askSignal) => {
      checkAnswerable(call.name, requests, call.capabilities)
      return await ask(requests, askSignal)
    })
    return { status: direct.httpStatus, payload: direct.outcome }
  })
  if (turn.kind === 'answer' && direct !== undefined) return { kind: 'result', result: callResultOf(direct) }
  return mcpTurnOf(turn)
}

/**
 * What the book refused, as the protocol's error: answers that do not fit the questions (400, naming
 * the field) are invalid params; a caller at its limit of calls is told so in words. Anything else
 * goes on as it is.
 */
export function protocolErrorOf (err: unknown): unknown {
  const status = (err as { statusCode?: unknown })?.statusCode
  if (!(err instanceof Error) || typeof status !== 'number' || err instanceof ProtocolError) return err
  if (status === 400 || status === 404) return new ProtocolError(ProtocolErrorCode.InvalidParams, err.message)
  if (status === 429 || status === 503) return new ProtocolError(ProtocolErrorCode.InternalError, err.message)
  return err
}
