// Calls in the Redis the replicas share, so that any replica answers for a call another runs. Per
// call: its record (`call:<id>`, JSON, expiring ttlMs after its last write or renewal), the lease
// the running replica renews (`call-lease:<id>`, leaseMs: gone means the replica stopped), a
// cancel asked by any replica (`call-cancel:<id>`) and answers left for its questions
// (`call-input:<id>`). Replicas tell each other of changes, cancels and answers on one channel; the
// running replica's heartbeat also reads the cancels and answers, so that a missed message costs a
// heartbeat, no more. Ended calls count in their owner's budget for all replicas together
// (../shared-state/redis-owner-budget.ts). Any failure of Redis throws CallStoreDownError.
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { InputResponses } from '../registry/types.ts'
import type { RedisLink } from '../shared-state/redis-link.ts'
import { keepWithinBudget, type OwnerBudget } from '../shared-state/redis-owner-budget.ts'
import { CallStoreDownError, type CallEvent, type CallRecord, type CallStore, type StoredCall } from './call-record.ts'

const recordKey = (callId: string): string => `call:${callId}`
const leaseKey = (callId: string): string => `call-lease:${callId}`
const cancelKey = (callId: string): string => `call-cancel:${callId}`
const inputKey = (callId: string): string => `call-input:${callId}`

// KEYS: record, lease. ARGV: record JSON, ttl, lease ms. A call id already recorded is not taken over.
const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
return 1
`
// KEYS: record, lease. ARGV: the updatedAt seen, the lost record JSON, ttl. Only a record unchanged
// since it was seen, and still without a lease, is recorded lost; answers the record as it is then.
const MARK_LOST = `
local value = redis.call('GET', KEYS[1])
if not value then return false end
if redis.call('EXISTS', KEYS[2]) == 1 then return value end
if cjson.decode(value).updatedAt ~= ARGV[1] then return value end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return ARGV[2]
`

export interface RedisCallStoreOptions {
  ttlMs: number
  leaseMs: number
  /** What one owner's ended calls may take in Redis, as stored. */
  maxBytesPerCaller: number
  logger: Logger
}

export class RedisCallStore implements CallStore {
  readonly #link: RedisLink
  readonly #options: RedisCallStoreOptions
  readonly #budget: OwnerBudget
  /** ioredis prefixes keys, not channels: the channel carries the prefix itself, so deployments sharing a Redis do not hear each other. */
  readonly #channel: string
  #subscriber: Redis | undefined
  readonly #listeners: Array<(event: CallEvent) => void> = []

  constructor (link: RedisLink, options: RedisCallStoreOptions) {
    this.#link = link
    this.#options = options
    this.#budget = { namespace: 'call:', maxBytesPerKey: options.maxBytesPerCaller }
    this.#channel = `${link.client.options.keyPrefix ?? ''}calls`
  }

  async create (record: CallRecord): Promise<boolean> {
    const { ttlMs, leaseMs } = this.#options
    const created = await this.#command(async (client) => await client.eval(CREATE, 2, recordKey(record.callId), leaseKey(record.callId), JSON.stringify(record), ttlMs, leaseMs))
    return created === 1
  }

  async update (record: CallRecord): Promise<void> {
    // XX: a record that expired or was settled meanwhile is not brought back by a late write.
    await this.#command(async (client) => await client.set(recordKey(record.callId), JSON.stringify(record), 'PX', this.#options.ttlMs, 'XX'))
  }

  async settle (record: CallRecord): Promise<boolean> {
    const { callId, owner } = record
    const kept = await this.#command(async () => await keepWithinBudget(this.#link, this.#budget, owner, recordKey(callId), JSON.stringify(record), this.#options.ttlMs))
    await this.#command(async (client) => await client.del(leaseKey(callId), cancelKey(callId), inputKey(callId)))
    return kept
  }

  async read (callId: string): Promise<StoredCall | undefined> {
    const answers = await this.#command(async (client) => await client.multi().get(recordKey(callId)).pttl(recordKey(callId)).exists(leaseKey(callId)).exec())
    const [[, value], [, ttlMs], [, lease]] = answers as [[unknown, string | null], [unknown, number], [unknown, number]]
    if (value === null || ttlMs <= 0) return undefined
    return { record: JSON.parse(value) as CallRecord, expiresAt: Date.now() + ttlMs, leaseAlive: lease === 1 }
  }

  async markLost (seen: CallRecord, lost: CallRecord): Promise<CallRecord | undefined> {
    const now = await this.#command(async (client) => await client.eval(MARK_LOST, 2, recordKey(seen.callId), leaseKey(seen.callId), seen.updatedAt, JSON.stringify(lost), this.#options.ttlMs))
    return typeof now === 'string' ? JSON.parse(now) as CallRecord : undefined
  }

  async renew (callIds: readonly string[]): Promise<void> {
    const { ttlMs, leaseMs } = this.#options
    await this.#command(async (client) => {
      const batch = client.pipeline()
      // SET, not PEXPIRE: a lease that lapsed during a Redis blip is taken up again.
      for (const callId of callIds) batch.set(leaseKey(callId), '1', 'PX', leaseMs).pexpire(recordKey(callId), ttlMs)
      return await batch.exec()
    })
  }

  async requestCancel (callId: string): Promise<void> {
    await this.#command(async (client) => await client.set(cancelKey(callId), '1', 'PX', this.#options.ttlMs))
    await this.publish({ kind: 'cancel', callId })
  }

  async cancelsRequested (callIds: readonly string[]): Promise<string[]> {
    if (callIds.length === 0) return []
    const flags = await this.#command(async (client) => await client.mget(callIds.map(cancelKey)))
    return callIds.filter((_callId, i) => flags[i] !== null)
  }

  async putInput (callId: string, responses: InputResponses): Promise<boolean> {
    const put = await this.#command(async (client) => await client.set(inputKey(callId), JSON.stringify(responses), 'PX', this.#options.ttlMs, 'NX'))
    if (put === 'OK') await this.publish({ kind: 'input', callId })
    return put === 'OK'
  }

  async takeInput (callId: string): Promise<InputResponses | undefined> {
    const value = await this.#command(async (client) => await client.getdel(inputKey(callId)))
    return value === null ? undefined : JSON.parse(value) as InputResponses
  }

  async publish (event: CallEvent): Promise<void> {
    await this.#command(async (client) => await client.publish(this.#channel, JSON.stringify(event)))
  }

  subscribe (listener: (event: CallEvent) => void): void {
    this.#listeners.push(listener)
    if (this.#subscriber !== undefined) return
    // A connection of its own: a subscribed connection runs no other command.
    const subscriber = this.#link.client.duplicate()
    this.#subscriber = subscriber
    // Errors are the link's to report; without a listener one would end the process.
    subscriber.on('error', () => {})
    // Without the offline queue a subscribe must wait for the connection; after a reconnection
    // ioredis subscribes again by itself, and a second subscribe changes nothing.
    subscriber.on('ready', () => {
      subscriber.subscribe(this.#channel).catch((err: unknown) => { this.#options.logger.debug({ err }, 'could not subscribe to the calls channel') })
    })
    subscriber.on('message', (_channel: string, message: string) => {
      let event: CallEvent
      try {
        event = JSON.parse(message) as CallEvent
      } catch {
        return
      }
      for (const each of this.#listeners) each(event)
    })
  }

  async close (): Promise<void> {
    this.#subscriber?.disconnect()
    this.#subscriber = undefined
  }

  async #command<T> (run: (client: RedisLink['client']) => Promise<T>): Promise<T> {
    if (!this.#link.connected) throw new CallStoreDownError('Redis is not connected')
    try {
      return await run(this.#link.client)
    } catch (err) {
      this.#link.failed(err)
      throw new CallStoreDownError('Redis failed', { cause: err })
    }
  }
}
