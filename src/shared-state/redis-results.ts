// Kept results in Redis, so that a result cut on one replica is read on any other: one key per
// result, expiring with its time to live, within its owner's budget for all replicas together
// (./redis-owner-budget.ts: one key's flood deletes its own oldest, never another key's). A failed write leaves the result readable on the replica
// that kept it; a failed read is a miss (the caller's 404 says the result may have expired).
import type { SharedResult, SharedResults } from '../results/result-store.ts'
import type { RedisLink } from './redis-link.ts'
import { keepWithinBudget, type OwnerBudget } from './redis-owner-budget.ts'

const keyOf = (id: string): string => `result:${id}`

export class RedisResults implements SharedResults {
  readonly #link: RedisLink
  readonly #budget: OwnerBudget

  /** `maxBytesPerKey`: what one owner's results may take in Redis, as stored (JSON, media base64). */
  constructor (link: RedisLink, maxBytesPerKey: number) {
    this.#link = link
    this.#budget = { namespace: 'result:', maxBytesPerKey }
  }

  async put (id: string, result: SharedResult, ttlMs: number): Promise<void> {
    if (!this.#link.connected) return
    try {
      await keepWithinBudget(this.#link, this.#budget, result.owner, keyOf(id), JSON.stringify(result), ttlMs)
    } catch (err) {
      this.#link.failed(err)
    }
  }

  async get (id: string): Promise<{ result: SharedResult, ttlMs: number } | undefined> {
    if (!this.#link.connected) return undefined
    try {
      const answers = await this.#link.client.multi().get(keyOf(id)).pttl(keyOf(id)).exec()
      const [[, value], [, ttlMs]] = answers as [[unknown, string | null], [unknown, number]]
      if (value === null || ttlMs <= 0) return undefined
      return { result: JSON.parse(value) as SharedResult, ttlMs }
    } catch (err) {
      this.#link.failed(err)
      return undefined
    }
  }
}
