// Idempotency records in this process's memory: the store without Redis, and the fallback while
// Redis is unreachable. Bounded: answers expire after their TTL, each owner (API key) has its own
// budget, maxBytesPerKey, past which its own oldest answers go, and past maxTotalBytes the owner
// holding the most loses its oldest (src/shared/owner-budgets.ts): one key's flood never evicts another
// key's answer, whose retry would run again. A running call is never evicted: its duplicates wait on it.
import { defaultBytesPerKey, OwnerBudgets } from '../shared/owner-budgets.ts'
import type { Claim, IdempotencyRecord, IdempotencyRecords, StoredAnswer } from './records.ts'

interface Running { readonly state: 'running', readonly fingerprint: string, readonly owner: string, readonly ended: PromiseWithResolvers<void> }
interface Done { readonly state: 'done', readonly fingerprint: string, readonly owner: string, readonly answer: StoredAnswer, readonly expiresAt: number }

/** What a caller may see of a record: not the promise or the bookkeeping. */
function recordOf (record: Running | Done): IdempotencyRecord {
  const { state, fingerprint } = record
  return state === 'running' ? { state, fingerprint } : { state, fingerprint, answer: record.answer }
}

export interface MemoryRecordsOptions {
  ttlMs: number
  maxTotalBytes: number
  /** Default a quarter of maxTotalBytes. */
  maxBytesPerKey?: number
  now?: () => number
}

export class MemoryRecords implements IdempotencyRecords {
  // Insertion order is completion order, so the first done record is the oldest (one TTL for all).
  readonly #records = new Map<string, Running | Done>()
  readonly #options: Required<MemoryRecordsOptions>
  readonly #budgets: OwnerBudgets

  constructor (options: MemoryRecordsOptions) {
    this.#options = { now: Date.now, maxBytesPerKey: defaultBytesPerKey(options.maxTotalBytes), ...options }
    this.#budgets = new OwnerBudgets(this.#options)
  }

  /** Bytes the kept answers take: never more than maxTotalBytes. */
  get totalBytes (): number {
    return this.#budgets.totalBytes
  }

  /** Bytes `owner`'s kept answers take: never more than maxBytesPerKey. */
  bytesOf (owner: string): number {
    return this.#budgets.bytesOf(owner)
  }

  async claim (key: string, fingerprint: string, owner: string): Promise<Claim | IdempotencyRecord> {
    const known = this.#current(key)
    if (known !== undefined) return recordOf(known)
    const running: Running = { state: 'running', fingerprint, owner, ended: Promise.withResolvers() }
    this.#records.set(key, running)
    return {
      complete: async (answer) => { this.#complete(key, running, answer) },
      release: async () => { this.#end(key, running) }
    }
  }

  async settled (key: string, signal: AbortSignal): Promise<IdempotencyRecord | undefined> {
    const known = this.#current(key)
    if (known?.state !== 'running' || signal.aborted) return known === undefined ? undefined : recordOf(known)
    // The signal is the connection's, which may outlive many waits: its listener goes with each.
    const aborted = Promise.withResolvers<void>()
    const onAbort = (): void => aborted.resolve()
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      await Promise.race([known.ended.promise, aborted.promise])
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
    const now = this.#current(key)
    return now === undefined ? undefined : recordOf(now)
  }

  #current (key: string): Running | Done | undefined {
    const record = this.#records.get(key)
    if (record?.state === 'done' && record.expiresAt <= this.#options.now()) {
      this.#forget(key, record)
      return undefined
    }
    return record
  }

  #complete (key: string, running: Running, answer: StoredAnswer): void {
    const bytes = (key.length + running.fingerprint.length + answer.body.length) * 2
    const { owner, fingerprint } = running
    this.#records.delete(key)
    if (this.#budgets.fits(bytes)) {
      this.#evictFor(owner, bytes)
      this.#records.set(key, { state: 'done', fingerprint, owner, answer, expiresAt: this.#options.now() + this.#options.ttlMs })
      this.#budgets.add(owner, key, bytes)
    }
    running.ended.resolve()
  }

  #end (key: string, running: Running): void {
    if (this.#records.get(key) === running) this.#records.delete(key)
    running.ended.resolve()
  }

  /** Expired answers go, then what the budgets name until `bytes` more of `owner`'s fit. */
  #evictFor (owner: string, bytes: number): void {
    const now = this.#options.now()
    for (const [key, record] of this.#records) {
      if (record.state !== 'done') continue
      if (record.expiresAt > now) break
      this.#forget(key, record)
    }
    for (let victim = this.#budgets.nextVictim(owner, bytes); victim !== undefined; victim = this.#budgets.nextVictim(owner, bytes)) {
      this.#forget(victim.key, this.#records.get(victim.key) as Done)
    }
  }

  #forget (key: string, record: Done): void {
    this.#records.delete(key)
    this.#budgets.remove(record.owner, key)
  }
}
