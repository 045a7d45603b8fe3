// Idempotency records in Redis, shared by the replicas. A claim is a SET NX with a lease that the
// running replica renews while the call runs: if that replica dies, the lease lapses and a retry
// may claim the key and run. Duplicates on other replicas poll the key until the answer is there.
// Answers count in their owner's budget for all replicas (../shared-state/redis-owner-budget.ts), so
// one key's flood deletes its own oldest answers, never another key's.
// Any failure of Redis throws SharedStoreDownError: the caller then uses this replica's memory.
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { RedisLink } from '../shared-state/redis-link.ts'
import { keepWithinBudget, type OwnerBudget } from '../shared-state/redis-owner-budget.ts'
import { SharedStoreDownError, type Claim, type IdempotencyRecord, type IdempotencyRecords } from './records.ts'

/** How long a claim outlives a replica that stopped renewing it. */
const LEASE_MS = 15_000
/** Polls of a running key: soon at first (most calls are short), then at most every 250 ms. */
const POLL_MS = [20, 40, 80, 160, 250]

// Only the claimant's token may renew or release a claim: a lapsed lease may have been claimed again.
const RENEW = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0"
const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"

type StoredRecord = IdempotencyRecord & { token?: string }

export class RedisRecords implements IdempotencyRecords {
  readonly #link: RedisLink
  readonly #ttlMs: number
  readonly #budget: OwnerBudget

  /** `maxBytesPerKey`: what one owner's answers may take in Redis, as stored. */
  constructor (link: RedisLink, options: { ttlMs: number, maxBytesPerKey: number }) {
    this.#link = link
    this.#ttlMs = options.ttlMs
    this.#budget = { namespace: 'idempotency:', maxBytesPerKey: options.maxBytesPerKey }
  }

  async claim (key: string, fingerprint: string, owner: string): Promise<Claim | IdempotencyRecord> {
    const running = JSON.stringify({ state: 'running', fingerprint, token: randomUUID() })
    // A key that expires between the SET and the GET is simply tried again.
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await this.#command(async (client) => await client.set(key, running, 'PX', LEASE_MS, 'NX')) === 'OK') {
        return this.#claimOf(key, fingerprint, owner, running)
      }
      const known = await this.#read(key)
      if (known !== undefined) return known
    }
    throw new SharedStoreDownError(`the idempotency key kept changing in Redis: ${key}`)
  }

  async settled (key: string, signal: AbortSignal): Promise<IdempotencyRecord | undefined> {
    for (let poll = 0; ; poll++) {
      const known = await this.#read(key)
      if (known?.state !== 'running' || signal.aborted) return known
      await sleep(POLL_MS[Math.min(poll, POLL_MS.length - 1)], undefined, { signal }).catch(() => {})
    }
  }

  #claimOf (key: string, fingerprint: string, owner: string, running: string): Claim {
    const renewal = setInterval(() => {
      this.#command(async (client) => await client.eval(RENEW, 1, key, running, LEASE_MS)).catch(() => {})
    }, LEASE_MS / 3)
    renewal.unref()
    return {
      complete: async (answer) => {
        clearInterval(renewal)
        // An answer over the owner's whole budget is not kept: the key is freed, and a retry runs.
        await this.#command(async () => await keepWithinBudget(this.#link, this.#budget, owner, key, JSON.stringify({ state: 'done', fingerprint, answer }), this.#ttlMs))
      },
      release: async () => {
        clearInterval(renewal)
        await this.#command(async (client) => await client.eval(RELEASE, 1, key, running))
      }
    }
  }

  async #read (key: string): Promise<IdempotencyRecord | undefined> {
    const value = await this.#command(async (client) => await client.get(key))
    if (value === null) return undefined
    const { token: _token, ...record } = JSON.parse(value) as StoredRecord
    return record
  }

  async #command<T> (run: (client: RedisLink['client']) => Promise<T>): Promise<T> {
    if (!this.#link.connected) throw new SharedStoreDownError('Redis is not connected')
    try {
      return await run(this.#link.client)
    } catch (err) {
      this.#link.failed(err)
      throw new SharedStoreDownError('Redis failed', { cause: err })
    }
  }
}
