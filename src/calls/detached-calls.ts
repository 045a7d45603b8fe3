// The book of calls that outlive their request: a REST call made with `Prefer: respond-async`
// (start), or a call already running whose tool asked its caller a question (adopt). Each is
// recorded before its caller hears of it, in the Redis the replicas share when there is one, so that
// any replica answers GET /calls/:id, cancels it or delivers its answers; the replica running it
// renews a lease on it, and a call whose lease lapsed (its replica died) reads as `lost` instead of
// running forever. While Redis is away, calls are recorded in this replica's memory.
// Calls belong to their owner: another owner's call reads as unknown, alike.
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from 'pino'
import type { InputResponses } from '../registry/types.ts'
import { BadRequestError, CancelledError, InternalError, RateLimitedError } from '../shared/errors.ts'
import { isTerminal, viewOf, type CallAnswer, type CallRecord, type CallSpec, type CallStore, type CallView, type HeldCall } from './call-record.ts'
import { CallStores, storeDown } from './call-stores.ts'
import { CallWaiters } from './call-waiters.ts'
import { checkAnswers } from './input-answers.ts'
import { cancelledBy, LeaseKeeper } from './lease-keeper.ts'
import { RunningCall, type RunningCallHost } from './running-call.ts'

/** A wait on a call that runs on another replica also reads its record this often (a missed message costs no more). */
const REMOTE_POLL_MS = 1_000
/** How long close() gives the calls it stops to record their ends. */
const CLOSE_GRACE_MS = 5_000

export interface DetachedCallsOptions {
  /** This process's store: the only one without Redis, the fallback while Redis is away. */
  memory: CallStore
  /** The Redis store the replicas share. */
  shared?: CallStore
  /** How long an ended call's outcome is kept. */
  ttlMs: number
  /** How long a question waits for its answers. */
  answerTimeoutMs: number
  /** Calls one owner may have running through start() on this replica. */
  maxRunningPerCaller: number
  /** How long a call outlives a replica that stopped renewing it; renewed every third of it. */
  leaseMs: number
  /** Stops every call running here (the gateway's shutdown). */
  shutdown?: AbortSignal
  /** Counts calls started here in and out, so that draining waits for them. */
  lifecycle?: { enter: () => void, leave: () => void }
  logger: Logger
  now?: () => number
}

/** A call found for its owner, and where. */
interface Found { view: CallView, store: CallStore }

/** The answer of a run that threw (the dispatcher never does): no internals. */
const FAILED: CallAnswer = Object.freeze({ status: 500, payload: { statusCode: 500, code: InternalError.code, error: 'Internal Server Error', message: 'the call failed; the gateway log has the details' } })

export class DetachedCalls {
  readonly #stores: CallStores
  readonly #options: DetachedCallsOptions
  readonly #logger: Logger
  readonly #now: () => number
  readonly #running = new Map<string, RunningCall>()
  readonly #runningByOwner = new Map<string, number>()
  readonly #waiters = new CallWaiters()
  readonly #leases: LeaseKeeper | undefined
  #closed = false

  constructor (options: DetachedCallsOptions) {
    this.#options = options
    this.#stores = new CallStores({ memory: options.memory, shared: options.shared, ttlMs: options.ttlMs, logger: options.logger })
    this.#logger = options.logger
    this.#now = options.now ?? Date.now
    this.#leases = options.shared === undefined ? undefined : new LeaseKeeper({ shared: options.shared, running: this.#running, waiters: this.#waiters, leaseMs: options.leaseMs, logger: options.logger })
    options.shutdown?.addEventListener('abort', () => {
      for (const call of this.#running.values()) call.controller.abort(options.shutdown?.reason)
    }, { once: true })
  }

  /** Calls running on this replica. */
  get running (): number {
    return this.#running.size
  }

  /**
   * Records a new call (readable by every replica once this resolves), then runs `run` and records
   * its answer. Throws RateLimitedError when `owner` already has calls.maxRunningPerCaller running here.
   */
  async start (spec: CallSpec, run: (held: HeldCall) => Promise<CallAnswer>): Promise<CallView> {
    this.#checkRoom(spec.owner)
    const call = await this.#open(spec, undefined)
    this.#options.lifecycle?.enter()
    this.#execute(call, run).catch((err: unknown) => { this.#logger.error({ err, callId: call.callId }, 'a detached call failed to record its end') })
    return this.#view(call.record, Infinity)
  }

  /**
   * Enters a call already running (a synchronous call whose tool asked a question) in the book,
   * under `callId` when given; `cancel` is called when the call is cancelled. The adopter settles it.
   */
  async adopt (spec: CallSpec & { callId?: string }, cancel: (reason: unknown) => void): Promise<HeldCall> {
    // A call waiting for answers outlives its request as a started one does, and counts the same.
    this.#checkRoom(spec.owner)
    const call = await this.#open(spec, spec.callId)
    call.signal.addEventListener('abort', () => { cancel(call.signal.reason) }, { once: true })
    return call
  }

  /** Throws RateLimitedError when `owner` already has calls.maxRunningPerCaller calls running here. */
  #checkRoom (owner: string): void {
    const { maxRunningPerCaller } = this.#options
    if ((this.#runningByOwner.get(owner) ?? 0) >= maxRunningPerCaller) {
      throw new RateLimitedError(`this caller already has ${maxRunningPerCaller} calls running in the background or waiting for answers, the most one may have (calls.maxRunningPerCaller, CALLS_MAX_RUNNING_PER_CALLER); retry when one has ended, or cancel one (DELETE /calls/:id)`)
    }
  }

  /** The call as its owner sees it; undefined when unknown, expired or another owner's, alike. */
  async get (owner: string, callId: string): Promise<CallView | undefined> {
    return (await this.#find(owner, callId))?.view
  }

  /**
   * The call at once when it has ended, or changed since `since` (an updatedAt seen before), or
   * (without `since`) waits for answers; else on its next change, or as it is after `ms`.
   */
  async wait (owner: string, callId: string, ms: number, since?: string): Promise<CallView | undefined> {
    const deadline = this.#now() + ms
    let seen = since
    for (;;) {
      const woken = this.#waiters.on(callId)
      try {
        const view = await this.get(owner, callId)
        if (view === undefined) return undefined
        // A caller that has not seen the questions yet is not kept waiting on its own answers.
        if (seen === undefined && view.status === 'input_required') return view
        seen ??= view.updatedAt
        const left = deadline - this.#now()
        if (isTerminal(view.status) || view.updatedAt !== seen || left <= 0 || this.#closed) return view
        const remote = this.#stores.shared !== undefined && !this.#running.has(callId)
        if (remote) this.#leases?.listen()
        await woken.after(remote ? Math.min(left, REMOTE_POLL_MS) : left)
      } finally {
        woken.cancel()
      }
    }
  }

  /** Cancels the call wherever it runs (its signal fires); the call as it is, or undefined as get() says. */
  async cancel (owner: string, callId: string): Promise<CallView | undefined> {
    const found = await this.#find(owner, callId)
    if (found === undefined || isTerminal(found.view.status)) return found?.view
    const local = this.#running.get(callId)
    const reason = cancelledBy(callId)
    if (local !== undefined) {
      local.cancel(reason)
    } else if (found.store === this.#stores.shared) {
      await found.store.requestCancel(callId).catch((err: unknown) => { throw storeDown(err) })
    }
    return found.view
  }

  /**
   * Delivers the caller's answers to the questions the call waits on, wherever it runs. Throws
   * BadRequestError naming the field when they answer anything else, miss a question, or do not
   * match a form's requestedSchema; undefined as get() says.
   */
  async answer (owner: string, callId: string, responses: InputResponses): Promise<CallView | undefined> {
    const found = await this.#find(owner, callId)
    if (found === undefined) return undefined
    const { view } = found
    checkAnswers(view.inputRequests, responses, view.status)
    const local = this.#running.get(callId)
    let delivered: boolean
    if (local !== undefined) {
      delivered = local.deliver(responses)
    } else {
      delivered = found.store === this.#stores.shared && await found.store.putInput(callId, responses).catch((err: unknown) => { throw storeDown(err) })
    }
    if (!delivered) throw new BadRequestError(`inputResponses: the call no longer waits for these answers (they were answered already, or the questions ended); GET /calls/${callId} shows what it waits for`)
    return (await this.get(owner, callId)) ?? view
  }

  /** Stops the calls running here, waits a little for their ends to be recorded, and lets go of the stores. */
  async close (): Promise<void> {
    this.#closed = true
    this.#leases?.stop()
    for (const call of this.#running.values()) call.controller.abort(new CancelledError('the gateway is shutting down'))
    const deadline = this.#now() + CLOSE_GRACE_MS
    while (this.#running.size > 0 && this.#now() < deadline) await sleep(20)
    this.#waiters.wakeAll()
    await this.#stores.close()
  }

  async #execute (call: RunningCall, run: (held: HeldCall) => Promise<CallAnswer>): Promise<void> {
    let answer: CallAnswer
    try {
      answer = await run(call)
    } catch (err) {
      this.#logger.error({ err, callId: call.callId }, 'a detached call failed')
      answer = FAILED
    }
    try {
      await call.settle(answer)
    } finally {
      this.#options.lifecycle?.leave()
    }
  }

  /** Records a new running call in the shared store, or in memory while it is away. */
  async #open (spec: CallSpec, callId: string | undefined): Promise<RunningCall> {
    const at = new Date(this.#now()).toISOString()
    const record: CallRecord = { callId: callId ?? `call_${randomUUID()}`, owner: spec.owner, tool: spec.tool, status: 'running', createdAt: at, updatedAt: at }
    if (this.#running.has(record.callId)) throw new BadRequestError(`call id ${record.callId} is in use`)
    const store = await this.#stores.create(record)
    const call = new RunningCall(record, this.#hostFor(store))
    this.#running.set(call.callId, call)
    this.#count(spec.owner, 1)
    if (store === this.#stores.shared) this.#leases?.start()
    // A call started while shutting down stops at once, as the calls already running did.
    if (this.#options.shutdown?.aborted === true) call.controller.abort(this.#options.shutdown.reason)
    return call
  }

  #hostFor (store: CallStore): RunningCallHost {
    return {
      answerTimeoutMs: this.#options.answerTimeoutMs,
      store,
      now: this.#now,
      write: async (call) => { await this.#write(store, call) },
      end: async (call, answer) => { await this.#end(store, call, answer) }
    }
  }

  async #write (store: CallStore, call: RunningCall): Promise<void> {
    this.#waiters.wake(call.callId)
    try {
      await store.update(call.record)
      await store.publish({ kind: 'changed', callId: call.callId })
    } catch (err) {
      // The record on the other replicas lags until the next write; this one answers from memory.
      this.#logger.debug({ err, callId: call.callId }, 'could not record a change of a detached call')
    }
  }

  async #end (store: CallStore, call: RunningCall, answer: CallAnswer): Promise<void> {
    const status = call.cancelRequested || answer.status === 499 ? 'cancelled' : 'completed'
    // Drafted: a reader sees the call running until its end is recorded as it will stay.
    let record = call.changed({ status, answer, inputRequests: undefined, approvalId: undefined }, false)
    if (!await this.#stores.settle(store, record)) {
      const bytes = Buffer.byteLength(JSON.stringify(answer))
      record = call.changed({ status: 'lost', answer: undefined, inputRequests: undefined, approvalId: undefined, error: `the call ended (${status}), but its answer (${bytes} bytes) is more than one caller may keep (calls.maxBytesPerCaller)` }, false)
      await this.#stores.settle(store, record)
    }
    call.record = record
    this.#running.delete(call.callId)
    this.#count(call.owner, -1)
    this.#waiters.wake(call.callId)
    if (store === this.#stores.shared) await store.publish({ kind: 'changed', callId: call.callId }).catch(() => {})
  }

  #count (owner: string, change: 1 | -1): void {
    const now = (this.#runningByOwner.get(owner) ?? 0) + change
    if (now > 0) this.#runningByOwner.set(owner, now)
    else this.#runningByOwner.delete(owner)
  }

  async #find (owner: string, callId: string): Promise<Found | undefined> {
    const local = this.#running.get(callId)
    if (local !== undefined) {
      return local.owner === owner ? { view: this.#view(local.record, Infinity), store: local.store } : undefined
    }
    const found = await this.#stores.find(callId)
    if (found === undefined || found.stored.record.owner !== owner) return undefined
    return { view: this.#view(found.stored.record, found.stored.expiresAt), store: found.store }
  }

  #view (record: CallRecord, expiresAt: number): CallView {
    return viewOf(record, expiresAt, this.#now(), this.#options.ttlMs)
  }
}
