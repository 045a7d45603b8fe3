// One call that outlives its request, as the replica running it holds it: its latest record, the
// signal that stops it, its questions waiting for answers and its progress, written to its store at
// most every PROGRESS_INTERVAL_MS. DetachedCalls (./detached-calls.ts) makes these and routes to
// them what any replica asks of the call.
import type { InputRequests, InputResponses, ToolProgress } from '../registry/types.ts'
import { InputTimeoutError } from '../shared/errors.ts'
import type { CallAnswer, CallRecord, CallStore, HeldCall } from './call-record.ts'
import { checkAnswers } from './input-answers.ts'

/** A tool may report progress thousands of times a second; its record changes at most this often. */
export const PROGRESS_INTERVAL_MS = 500

/** What a running call needs from the book that holds it. */
export interface RunningCallHost {
  readonly answerTimeoutMs: number
  /** The store the call was recorded in (Redis, or memory while Redis is away). */
  readonly store: CallStore
  /** Writes the call's record as it now is, telling the replicas it changed. */
  write: (call: RunningCall) => Promise<void>
  /** Writes the call's last record, and lets it go. */
  end: (call: RunningCall, answer: CallAnswer) => Promise<void>
  now: () => number
}

interface Question {
  readonly requests: InputRequests
  readonly answered: PromiseWithResolvers<InputResponses>
}

export class RunningCall implements HeldCall {
  readonly callId: string
  readonly owner: string
  readonly controller = new AbortController()
  record: CallRecord
  /** A DELETE asked for it: its answer is recorded as `cancelled`. */
  cancelRequested = false
  ended = false
  readonly #host: RunningCallHost
  #question: Question | undefined
  /** Questions asked while one waits go after it, one at a time. */
  #questions: Promise<unknown> = Promise.resolve()
  #pendingProgress: ToolProgress | undefined
  #progressTimer: ReturnType<typeof setTimeout> | undefined
  #lastProgressAt = -Infinity
  #lastUpdatedAt = 0

  constructor (record: CallRecord, host: RunningCallHost) {
    this.callId = record.callId
    this.owner = record.owner
    this.record = record
    this.#host = host
    this.#lastUpdatedAt = Date.parse(record.updatedAt)
  }

  /** Where the call is recorded. */
  get store (): CallStore {
    return this.#host.store
  }

  get signal (): AbortSignal {
    return this.controller.signal
  }

  /** The questions waiting for answers, if any. */
  get waitingFor (): InputRequests | undefined {
    return this.#question?.requests
  }

  /**
   * The record changed now (updatedAt always moves forward, so that a poller sees every change);
   * `keep: false` only drafts it, for the book to decide what it records last.
   */
  changed (change: Partial<CallRecord>, keep = true): CallRecord {
    const at = Math.max(this.#host.now(), this.#lastUpdatedAt + 1)
    this.#lastUpdatedAt = at
    const record: CallRecord = { ...this.record, ...change, updatedAt: new Date(at).toISOString() }
    for (const key of Object.keys(change) as Array<keyof CallRecord>) {
      if (change[key] === undefined) delete record[key]
    }
    if (keep) this.record = record
    return record
  }

  cancel (reason: unknown): void {
    this.cancelRequested = true
    this.controller.abort(reason)
  }

  progress = (update: ToolProgress): void => {
    if (this.ended) return
    this.#pendingProgress = update
    if (this.#progressTimer !== undefined) return
    const wait = this.#lastProgressAt + PROGRESS_INTERVAL_MS - this.#host.now()
    if (wait <= 0) {
      this.#flushProgress()
      return
    }
    this.#progressTimer = setTimeout(() => { this.#flushProgress() }, wait)
    this.#progressTimer.unref()
  }

  ask = async (requests: InputRequests, signal: AbortSignal): Promise<InputResponses> => {
    const turn = this.#questions.then(async () => await this.#ask(requests, signal))
    this.#questions = turn.catch(() => {})
    return await turn
  }

  /** Answers the question waiting; false when none waits for these answers (checked against it). */
  deliver (responses: InputResponses): boolean {
    const question = this.#question
    if (question === undefined) return false
    try {
      checkAnswers(question.requests, responses, this.record.status)
    } catch {
      return false
    }
    this.#question = undefined
    question.answered.resolve(responses)
    // Running again from now on, for whoever reads next; the asking side records it.
    this.changed({ status: 'running', inputRequests: undefined })
    return true
  }

  holdForApproval = async (approvalId: string | undefined): Promise<void> => {
    if (this.ended) return
    await this.#write(approvalId === undefined ? { status: 'running', approvalId: undefined } : { status: 'pending_approval', approvalId })
  }

  settle = async (answer: CallAnswer): Promise<void> => {
    if (this.ended) return
    this.ended = true
    clearTimeout(this.#progressTimer)
    this.#question?.answered.reject(new Error('the call ended'))
    await this.#host.end(this, answer)
  }

  async #ask (requests: InputRequests, signal: AbortSignal): Promise<InputResponses> {
    signal.throwIfAborted()
    this.signal.throwIfAborted()
    const question: Question = { requests, answered: Promise.withResolvers() }
    this.#question = question
    const stop = (reason: unknown): void => { question.answered.reject(reason) }
    const onAbort = (): void => { stop(signal.aborted ? signal.reason : this.signal.reason) }
    signal.addEventListener('abort', onAbort, { once: true })
    this.signal.addEventListener('abort', onAbort, { once: true })
    const timeoutMs = this.#host.answerTimeoutMs
    const timer = setTimeout(() => {
      const timedOut = new InputTimeoutError(`nobody answered the tool's questions (${Object.keys(requests).map((key) => `"${key}"`).join(', ')}) within ${timeoutMs} ms (calls.answerTimeoutMs); answer them with POST /calls/${this.callId}/input while the call is input_required`)
      stop(timedOut)
      // After the rejection reached the tool, whose own failure is the answer: a tool that carries
      // on without the answers is stopped, as the call's signal promises.
      setImmediate(() => { this.controller.abort(timedOut) })
    }, timeoutMs)
    timer.unref()
    try {
      // Answers left for an earlier question that ended first must not answer this one.
      await this.#host.store.takeInput(this.callId).catch(() => undefined)
      await this.#write({ status: 'input_required', inputRequests: requests })
      return await question.answered.promise
    } finally {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      this.signal.removeEventListener('abort', onAbort)
      if (this.#question === question) this.#question = undefined
      if (!this.ended) await this.#write({ status: 'running', inputRequests: undefined })
    }
  }

  #flushProgress (): void {
    this.#progressTimer = undefined
    const update = this.#pendingProgress
    if (update === undefined || this.ended) return
    this.#pendingProgress = undefined
    this.#lastProgressAt = this.#host.now()
    this.#write({ progress: update }).catch(() => {})
  }

  async #write (change: Partial<CallRecord>): Promise<void> {
    this.changed(change)
    await this.#host.write(this)
  }
}
