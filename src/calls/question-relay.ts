// A call answered in the same request that made it (REST without `Prefer: respond-async`, an MCP
// `tools/call`) whose tool asks its caller a question (ctx.ask). At the first question the call
// enters the book (DetachedCalls.adopt) and stops listening to its connection, and the request is
// answered `input_required` with the questions and a requestState naming the call; the caller sends
// the call again with its answers and that state, on any replica, and is answered what comes next:
// the result, or the next question. The call runs on where it started all along: what crosses
// replicas is the book's record of it.
import type { InputRequests, InputResponses } from '../registry/types.ts'
import { BadRequestError } from '../shared/errors.ts'
import { isTerminal, type CallAnswer, type CallSpec, type CallView, type HeldCall } from './call-record.ts'
import type { DetachedCalls } from './detached-calls.ts'

/** What the caller is answered now: the call's answer, or the questions it waits on. */
export type Turn =
  | { readonly kind: 'answer', readonly answer: CallAnswer }
  | { readonly kind: 'question', readonly callId: string, readonly inputRequests: InputRequests, readonly requestState: string }

/** How a call asks: what DispatchRequest.ask takes. */
export type Asker = (requests: InputRequests, signal: AbortSignal) => Promise<InputResponses>

/** A waiting call is read again at least this often while its caller waits for its next turn. */
const TURN_POLL_MS = 30_000

const FAILED_RUN: CallAnswer = Object.freeze({ status: 500, payload: { error: 'the call failed; the gateway log has the details' } })

/** A requestState is the call's id: unguessable, and worth nothing to anyone but the call's owner. */
const REQUEST_STATE = /^call_[0-9a-f-]{36}$/

/** The answer of a call whose record says it ended without one (lost: its replica stopped). */
export type LostAnswer = (view: CallView) => CallAnswer

/** Aborts `controller` when `signal` fires, until the function it returns is called. */
export function follow (signal: AbortSignal | undefined, controller: AbortController): () => void {
  const onAbort = (): void => { controller.abort(signal?.reason) }
  signal?.addEventListener('abort', onAbort, { once: true })
  if (signal?.aborted === true) onAbort()
  return () => { signal?.removeEventListener('abort', onAbort) }
}

/**
 * Runs a call that may ask: `run(signal, ask)` starts it with the signal it must obey and the asker
 * to hand its tool. Resolves at the first of its answer and its first question.
 */
export async function firstTurn (
  book: DetachedCalls,
  spec: CallSpec,
  connection: AbortSignal | undefined,
  run: (signal: AbortSignal, ask: Asker) => Promise<CallAnswer>
): Promise<Turn> {
  const controller = new AbortController()
  // Until it asks, the call is its connection's: a client that goes away cancels it, as any call.
  const release = follow(connection, controller)
  const raised = Promise.withResolvers<Turn>()
  let held: HeldCall | undefined
  const ask: Asker = async (requests, signal) => {
    if (held === undefined) {
      // From its first question on, the call outlives the request that made it: the caller answers
      // in a new one, and only a cancel (or the book's answer timeout) stops it.
      held = await book.adopt(spec, (reason) => { controller.abort(reason) })
      release()
    }
    const answered = held.ask(requests, signal)
    raised.resolve({ kind: 'question', callId: held.callId, inputRequests: requests, requestState: held.callId })
    return await answered
  }
  const answered = run(controller.signal, ask).then(async (answer): Promise<Turn> => {
    release()
    if (held !== undefined) await held.settle(answer)
    return { kind: 'answer', answer }
  }, async (err: unknown): Promise<Turn> => {
    // A run that fails (the dispatcher never does) still ends its record, so that nobody waits on it.
    if (held !== undefined) await held.settle(FAILED_RUN)
    throw err
  })
  return await Promise.race([answered, raised.promise])
}

/**
 * Delivers the caller's answers to the call `requestState` names and waits for its next turn;
 * undefined when the call is unknown, expired or another owner's. Throws BadRequestError naming
 * what is wrong: a requestState of another tool's call, answers that do not fit the questions, a
 * call that waits for none.
 */
export async function nextTurn (
  book: DetachedCalls,
  owner: string,
  tool: string,
  requestState: string,
  responses: unknown,
  lost: LostAnswer,
  signal?: AbortSignal
): Promise<Turn | undefined> {
  if (!REQUEST_STATE.test(requestState)) return undefined
  const before = await book.get(owner, requestState)
  if (before === undefined) return undefined
  if (before.tool !== tool) {
    throw new BadRequestError(`requestState names a call of tool "${before.tool}", not "${tool}": send the answers with the call that asked`)
  }
  if (isTerminal(before.status)) return answerOf(before, lost)
  if (before.status !== 'input_required') {
    throw new BadRequestError('inputResponses: the call waits for no answer now (it is running: its questions were answered already)')
  }
  // Throws naming the field when the answers do not fit the questions.
  await book.answer(owner, requestState, responses as InputResponses)
  let since = before.updatedAt
  for (;;) {
    signal?.throwIfAborted()
    const view = await book.wait(owner, requestState, TURN_POLL_MS, since)
    if (view === undefined) return undefined
    if (isTerminal(view.status)) return answerOf(view, lost)
    // A question recorded after the one answered: the call's next turn.
    if (view.status === 'input_required' && view.updatedAt !== before.updatedAt && view.inputRequests !== undefined) {
      return { kind: 'question', callId: view.callId, inputRequests: view.inputRequests, requestState: view.callId }
    }
    since = view.updatedAt
  }
}

function answerOf (view: CallView, lost: LostAnswer): Turn {
  return { kind: 'answer', answer: view.answer ?? lost(view) }
}
