// Where the book records a call: in the Redis the replicas share when the gateway has one, else
// (and while Redis is away) in this process's memory, where only this replica answers for it. A
// call stays in the store it was recorded in, except its end, kept in memory when Redis fails then.
import type { Logger } from 'pino'
import { BadRequestError, OverloadedError } from '../shared/errors.ts'
import { CallStoreDownError, isTerminal, lostRecord, type CallRecord, type CallStore, type StoredCall } from './call-record.ts'

/** A shared store that cannot answer a request that needs it: 503, retry. */
export function storeDown (err: unknown): Error {
  return err instanceof CallStoreDownError ? new OverloadedError('the shared store of calls (Redis) cannot be reached right now; retry in a moment') : err as Error
}

export class CallStores {
  readonly memory: CallStore
  readonly shared: CallStore | undefined
  readonly #ttlMs: number
  readonly #logger: Logger

  constructor (options: { memory: CallStore, shared?: CallStore, ttlMs: number, logger: Logger }) {
    this.memory = options.memory
    this.shared = options.shared
    this.#ttlMs = options.ttlMs
    this.#logger = options.logger
  }

  /** Records a new running call; the store it is in. Throws BadRequestError when its id is taken. */
  async create (record: CallRecord): Promise<CallStore> {
    const taken = new BadRequestError(`call id ${record.callId} is in use`)
    if (await this.memory.read(record.callId) !== undefined) throw taken
    if (this.shared !== undefined) {
      try {
        if (!await this.shared.create(record)) throw taken
        return this.shared
      } catch (err) {
        if (!(err instanceof CallStoreDownError)) throw err
        this.#logger.warn({ callId: record.callId, err: err.message }, 'Redis is away: the call is recorded in this replica\'s memory, and only this replica answers for it')
      }
    }
    if (!await this.memory.create(record)) throw taken
    return this.memory
  }

  /** Keeps an ended call in `store`, or in memory when it cannot; false when it is over its owner's budget. */
  async settle (store: CallStore, record: CallRecord): Promise<boolean> {
    try {
      return await store.settle(record)
    } catch (err) {
      if (!(err instanceof CallStoreDownError) || store === this.memory) throw err
      this.#logger.warn({ callId: record.callId, err: err.message }, 'Redis is away: the outcome of the call is kept in this replica\'s memory, and only this replica answers for it')
      return await this.memory.settle(record)
    }
  }

  /** The call and its store; a running call whose lease lapsed is recorded lost first. */
  async find (callId: string): Promise<{ stored: StoredCall, store: CallStore } | undefined> {
    let store = this.memory
    let stored = await this.memory.read(callId)
    if (stored === undefined && this.shared !== undefined) {
      store = this.shared
      stored = await this.shared.read(callId).catch((err: unknown) => { throw storeDown(err) })
    }
    if (stored === undefined) return undefined
    if (!isTerminal(stored.record.status) && !stored.leaseAlive) stored = await this.#lost(store, stored)
    return { stored, store }
  }

  async close (): Promise<void> {
    await this.memory.close()
    await this.shared?.close()
  }

  /** A running call whose lease lapsed: its replica stopped. Recorded, so that every reader agrees. */
  async #lost (store: CallStore, stored: StoredCall): Promise<StoredCall> {
    const lost = lostRecord(stored.record, Date.now())
    try {
      const now = await store.markLost(stored.record, lost)
      if (now !== undefined) return { record: now, expiresAt: Date.now() + this.#ttlMs, leaseAlive: true }
    } catch (err) {
      if (!(err instanceof CallStoreDownError)) throw err
    }
    return { record: lost, expiresAt: stored.expiresAt, leaseAlive: true }
  }
}
