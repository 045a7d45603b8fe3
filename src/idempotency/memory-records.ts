// Idempotency records in this process's memory: the store without Redis, and the fallback while
// Redis is unreachable. Bounded: answers expire after their TTL, and past maxTotalBytes the oldest
// answers go first (a retry of an evicted key runs again; the README says so). A running call is
// never evicted: its duplicates wait on it.
import type { Claim, IdempotencyRecord, IdempotencyRecords, StoredAnswer } from './records.ts'

interface Running { readonly state: 'running', readonly fingerprint: string, readonly ended: PromiseWithResolvers<void> }
interface Done { readonly state: 'done', readonly fingerprint: string, readonly answer: StoredAnswer, readonly bytes: number, readonly expiresAt: number }

/** What a caller may see of a record: not the promise or the bookkeeping. */
function recordOf (record: Running | Done): IdempotencyRecord {
  const { state, fingerprint } = record
  return state === 'running' ? { state, fingerprint } : { state, fingerprint, answer: record.answer }
}

export interface MemoryRecordsOptions {
  ttlMs: number
  maxTotalBytes: number
  now?: () => number
}

export class MemoryRecords implements IdempotencyRecords {
  // Insertion order is completion order, so the first done record is the oldest (one TTL for all).
  readonly #records = new Map<string, Running | Done>()
  readonly #options: Required<MemoryRecordsOptions>
  #doneBytes = 0

  constructor (options: MemoryRecordsOptions) {
    this.#options = { now: Date.now, ...options }
  }

  /** Bytes the kept answers take: never more than maxTotalBytes. */
  get totalBytes (): number {
    return this.#doneBytes
  }

  async claim (key: string, fingerprint: string): Promise<Claim | IdempotencyRecord> {
    const known = this.#current(key)
    if (known !== undefined) return recordOf(known)
    const running: Running = { state: 'running', fingerprint, ended: Promise.withResolvers() }
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
    this.#records.delete(key)
    if (bytes <= this.#options.maxTotalBytes) {
      this.#evictFor(bytes)
      this.#records.set(key, { state: 'done', fingerprint: running.fingerprint, answer, bytes, expiresAt: this.#options.now() + this.#options.ttlMs })
      this.#doneBytes += bytes
    }
    running.ended.resolve()
  }

  #end (key: string, running: Running): void {
    if (this.#records.get(key) === running) this.#records.delete(key)
    running.ended.resolve()
  }

  /** Expired answers go, then the oldest until `bytes` more fit. */
  #evictFor (bytes: number): void {
    const now = this.#options.now()
    for (const [key, record] of this.#records) {
      if (record.state !== 'done') continue
      if (record.expiresAt > now && this.#doneBytes + bytes <= this.#options.maxTotalBytes) break
      this.#forget(key, record)
    }
  }

  #forget (key: string, record: Done): void {
    this.#records.delete(key)
    this.#doneBytes -= record.bytes
  }
}
