// The shapes of calls that outlive their request (a REST call made with `Prefer: respond-async`, a
// call whose tool asked its caller a question): what a caller sees of one (CallView), what the code
// running it holds (HeldCall), and what a store of them keeps (CallRecord, CallStore), in this
// process's memory or in the Redis the replicas share.
import type { InputRequests, InputResponses, ToolProgress } from '../registry/types.ts'

/**
 * `running`: the tool runs; `input_required`: it waits for its caller's answers (inputRequests);
 * `pending_approval`: it waits for a person's approval (approvalId, trust.approval); `completed`: it ended, `answer` holds what a synchronous call would have answered; `cancelled`:
 * a DELETE (or shutdown) stopped it, `answer` holds the cancelled envelope; `lost`: the replica
 * running it stopped before it ended.
 */
export type CallStatus = 'running' | 'input_required' | 'pending_approval' | 'completed' | 'cancelled' | 'lost'

export const CALL_STATUSES: readonly CallStatus[] = ['running', 'input_required', 'pending_approval', 'completed', 'cancelled', 'lost']

/** Statuses a call never leaves. */
export function isTerminal (status: CallStatus): boolean {
  return status === 'completed' || status === 'cancelled' || status === 'lost'
}

/** What a synchronous call would have answered: its HTTP status and its body (an envelope, a batch answer). */
export interface CallAnswer {
  status: number
  payload: unknown
}

/** What a caller sees of one call. */
export interface CallView {
  callId: string
  /** Whose call it is (the API key's name, `user:<sub>`, `anonymous`): nobody else sees it. */
  owner: string
  /** The tool called (for a batch: `batch: ` and the tools' names). */
  tool: string
  status: CallStatus
  /** ISO 8601 times: when it started, when its record last changed, when its record is forgotten. */
  createdAt: string
  updatedAt: string
  expiresAt: string
  /** The tool's latest progress report. */
  progress?: ToolProgress
  /** While `input_required`: the questions waiting for answers, keyed as the tool asked them. */
  inputRequests?: InputRequests
  /** While `pending_approval`: the approval it waits on (POST /admin/approvals/:id). */
  approvalId?: string
  /** Once `completed` or `cancelled`. */
  answer?: CallAnswer
  /** Once `lost`: why. */
  error?: string
}

/** A call as a store keeps it: the view without its expiry, which the store knows. */
export type CallRecord = Omit<CallView, 'expiresAt'>

/** Who starts a call, and which tool. */
export interface CallSpec {
  owner: string
  tool: string
}

/** A call held by the code running it (the book gives it to `run`, or to whoever adopts a running call). */
export interface HeldCall {
  readonly callId: string
  /** Fires when the call is cancelled (DELETE /calls/:id on any replica), when a question waited past calls.answerTimeoutMs, and on shutdown. */
  readonly signal: AbortSignal
  /** Records the tool's progress (at most a few writes a second) so that GET shows it. */
  progress: (update: ToolProgress) => void
  /**
   * Puts the questions to the caller: the call is `input_required` until its answers arrive
   * (DetachedCalls.answer, on any replica); rejects when calls.answerTimeoutMs passes first
   * (GW_ERR_INPUT_TIMEOUT) or `signal` fires.
   */
  ask: (requests: InputRequests, signal: AbortSignal) => Promise<InputResponses>
  /** Records that the call waits for a person's approval (its id), or runs again (undefined). */
  holdForApproval: (approvalId: string | undefined) => Promise<void>
  /** Ends the call with its answer, kept for calls.ttlMs. */
  settle: (answer: CallAnswer) => Promise<void>
}

/** What a replica tells the others about a call (with Redis; in memory, only itself). */
export type CallEvent =
  | { kind: 'changed', callId: string }
  | { kind: 'cancel', callId: string }
  | { kind: 'input', callId: string }

/** A stored call and what the store knows beside it. */
export interface StoredCall {
  record: CallRecord
  /** When the store forgets it (ms since the epoch). */
  expiresAt: number
  /** False when the call is `running` or `input_required` but its replica stopped renewing its lease. */
  leaseAlive: boolean
}

/**
 * Where calls are kept. Writes of a running call come from the replica running it; the others
 * only read, ask for a cancel, deliver answers and record a call lost. Methods throw
 * CallStoreDownError when the store cannot answer (Redis down): the book then uses its memory.
 */
export interface CallStore {
  /** A new running call, with its lease: readable by every replica once this resolves; false when its id is taken. */
  create: (record: CallRecord) => Promise<boolean>
  /** A running call's record as it now is (progress, questions, running again). */
  update: (record: CallRecord) => Promise<void>
  /** A call's last record, kept for the TTL within its owner's budget; false when it alone is over that budget (not kept). */
  settle: (record: CallRecord) => Promise<boolean>
  read: (callId: string) => Promise<StoredCall | undefined>
  /** Records `lost` over `seen`, unless the call changed or its lease came back meanwhile; the record as it then is. */
  markLost: (seen: CallRecord, lost: CallRecord) => Promise<CallRecord | undefined>
  /** Renews the leases of the calls this replica runs. */
  renew: (callIds: readonly string[]) => Promise<void>
  /** Asks the replica running the call to cancel it. */
  requestCancel: (callId: string) => Promise<void>
  /** Of `callIds`, those whose cancel was asked for (the heartbeat's check, in case a message was missed). */
  cancelsRequested: (callIds: readonly string[]) => Promise<string[]>
  /** Leaves answers for the replica running the call; false when answers are already waiting there. */
  putInput: (callId: string, responses: InputResponses) => Promise<boolean>
  /** Takes the answers left for a call, once. */
  takeInput: (callId: string) => Promise<InputResponses | undefined>
  /** Tells every replica (this one included) about a call. */
  publish: (event: CallEvent) => Promise<void>
  /** Receives what replicas publish. */
  subscribe: (listener: (event: CallEvent) => void) => void
  close: () => Promise<void>
}

/** The store could not answer (Redis down, slow or failing): the book uses this replica's memory. */
export class CallStoreDownError extends Error {}

/** The view of a record, `expiresAt` in ms (Infinity while it runs here: then `ttlMs` from `now`). */
export function viewOf (record: CallRecord, expiresAt: number, now: number, ttlMs: number): CallView {
  const expiry = expiresAt === Infinity ? now + ttlMs : expiresAt
  const { callId, owner, tool, status, createdAt, updatedAt, progress, inputRequests, approvalId, answer, error } = record
  const view: CallView = { callId, owner, tool, status, createdAt, updatedAt, expiresAt: new Date(expiry).toISOString() }
  if (progress !== undefined) view.progress = progress
  if (inputRequests !== undefined) view.inputRequests = inputRequests
  if (approvalId !== undefined) view.approvalId = approvalId
  if (answer !== undefined) view.answer = answer
  if (error !== undefined) view.error = error
  return view
}

/** A running call whose replica stopped renewing its lease, as it is recorded from then on. */
export function lostRecord (record: CallRecord, now: number): CallRecord {
  const lost: CallRecord = {
    ...record,
    status: 'lost',
    updatedAt: new Date(Math.max(now, Date.parse(record.updatedAt) + 1)).toISOString(),
    error: 'the call was lost: the replica that ran it stopped (crashed, or was killed) before it ended; its outcome is unknown, and it may have done part of its work'
  }
  delete lost.inputRequests
  delete lost.approvalId
  return lost
}
