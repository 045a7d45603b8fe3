// Calls in this process's memory: the store without Redis, and the fallback while Redis is away.
// One Map. A running call stays while it runs (this process runs it: no lease to lose); an ended
// one is kept for its TTL within its owner's byte budget (../shared/owner-budgets.ts: past
// maxBytesPerCaller its own oldest outcomes go, past maxTotalBytes the owner holding the most loses
// its oldest), and a sweep drops the expired ones. Events go to this process's listeners only.
import type { InputResponses } from '../registry/types.ts'
import { OwnerBudgets } from '../shared/owner-budgets.ts'
import type { CallEvent, CallRecord, CallStore, StoredCall } from './call-record.ts'

interface Kept {
  record: CallRecord
  /** Infinity while it runs. */
  expiresAt: number
}

export interface MemoryCallStoreOptions {
  ttlMs: number
  maxTotalBytes: number
  maxBytesPerCaller: number
  now?: () => number
}

/** How often expired outcomes are swept: a tenth of the TTL, within 1 s to 60 s. */
function sweepInterval (ttlMs: number): number {
  return Math.min(60_000, Math.max(1_000, Math.floor(ttlMs / 10)))
}

export class MemoryCallStore implements CallStore {
  readonly #calls = new Map<string, Kept>()
  readonly #inputs = new Map<string, InputResponses>()
  readonly #cancels = new Set<string>()
  readonly #listeners: Array<(event: CallEvent) => void> = []
  readonly #budgets: OwnerBudgets
  readonly #ttlMs: number
  readonly #now: () => number
  readonly #sweep: ReturnType<typeof setInterval>

  constructor (options: MemoryCallStoreOptions) {
    this.#ttlMs = options.ttlMs
    this.#now = options.now ?? Date.now
    this.#budgets = new OwnerBudgets({ maxTotalBytes: options.maxTotalBytes, maxBytesPerKey: options.maxBytesPerCaller })
    this.#sweep = setInterval(() => { this.#dropExpired() }, sweepInterval(options.ttlMs))
    this.#sweep.unref()
  }

  /** Bytes the kept outcomes take (2 per character of their JSON). */
  get totalBytes (): number {
    return this.#budgets.totalBytes
  }

  /** Calls held, running or ended. */
  get size (): number {
    return this.#calls.size
  }

  async create (record: CallRecord): Promise<boolean> {
    if (await this.read(record.callId) !== undefined) return false
    this.#calls.set(record.callId, { record, expiresAt: Infinity })
    return true
  }

  async update (record: CallRecord): Promise<void> {
    const kept = this.#calls.get(record.callId)
    // A running call is never evicted; an update of one that ended (a late progress) changes nothing.
    if (kept !== undefined && kept.expiresAt === Infinity) kept.record = record
  }

  async settle (record: CallRecord): Promise<boolean> {
    const { callId, owner } = record
    this.#forget(callId)
    this.#inputs.delete(callId)
    this.#cancels.delete(callId)
    const bytes = JSON.stringify(record).length * 2
    if (!this.#budgets.fits(bytes)) return false
    this.#dropExpired()
    for (let victim = this.#budgets.nextVictim(owner, bytes); victim !== undefined; victim = this.#budgets.nextVictim(owner, bytes)) {
      this.#forget(victim.key)
    }
    this.#calls.set(callId, { record, expiresAt: this.#now() + this.#ttlMs })
    this.#budgets.add(owner, callId, bytes)
    return true
  }

  async read (callId: string): Promise<StoredCall | undefined> {
    const kept = this.#calls.get(callId)
    if (kept === undefined) return undefined
    if (kept.expiresAt <= this.#now()) {
      this.#forget(callId)
      return undefined
    }
    return { record: kept.record, expiresAt: kept.expiresAt, leaseAlive: true }
  }

  async markLost (_seen: CallRecord, lost: CallRecord): Promise<CallRecord | undefined> {
    // Only a call this process runs is running here, and its lease never lapses.
    return (await this.settle(lost)) ? lost : undefined
  }

  async renew (): Promise<void> {}

  async requestCancel (callId: string): Promise<void> {
    this.#cancels.add(callId)
    await this.publish({ kind: 'cancel', callId })
  }

  async cancelsRequested (callIds: readonly string[]): Promise<string[]> {
    return callIds.filter((callId) => this.#cancels.has(callId))
  }

  async putInput (callId: string, responses: InputResponses): Promise<boolean> {
    if (this.#inputs.has(callId)) return false
    this.#inputs.set(callId, responses)
    await this.publish({ kind: 'input', callId })
    return true
  }

  async takeInput (callId: string): Promise<InputResponses | undefined> {
    const responses = this.#inputs.get(callId)
    this.#inputs.delete(callId)
    return responses
  }

  async publish (event: CallEvent): Promise<void> {
    // After the writer's own continuation, as a message from Redis would arrive.
    queueMicrotask(() => { for (const listener of this.#listeners) listener(event) })
  }

  subscribe (listener: (event: CallEvent) => void): void {
    this.#listeners.push(listener)
  }

  async close (): Promise<void> {
    clearInterval(this.#sweep)
  }

  #dropExpired (): void {
    const now = this.#now()
    for (const [callId, kept] of this.#calls) {
      if (kept.expiresAt <= now) this.#forget(callId)
    }
  }

  #forget (callId: string): void {
    const kept = this.#calls.get(callId)
    if (kept === undefined) return
    this.#calls.delete(callId)
    this.#budgets.remove(kept.record.owner, callId)
  }
}
