// Pending approvals in the Redis the replicas share: each as JSON (`approval:<id>`), the latest of
// a caller's call by digest (`approval-digest:<sha256 of caller and digest>`), and the pending
// ones in a sorted set by creation time (`approvals-pending`), so that any replica lists and
// decides them. A change of status is one Lua script: the compare-and-set that gives two
// replicas deciding at once one winner.
import { createHash } from 'node:crypto'
import type { RedisLink } from '../shared-state/redis-link.ts'
import type { ApprovalRecords, ApprovalStatus, ApprovalView } from './approval-records.ts'

const recordKey = (approvalId: string): string => `approval:${approvalId}`
const digestKey = (caller: string, digest: string): string => `approval-digest:${createHash('sha256').update(`${caller}\n${digest}`).digest('hex')}`
const PENDING = 'approvals-pending'

// KEYS: record, pending set. ARGV: expected status, the next record JSON, keep ms, next status, id.
const TRANSITION = `
local value = redis.call('GET', KEYS[1])
if not value then return {0, false} end
if cjson.decode(value).status ~= ARGV[1] then return {0, value} end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
if ARGV[4] ~= 'pending' then redis.call('ZREM', KEYS[2], ARGV[5]) end
return {1, ARGV[2]}
`

const parse = (value: string | null | undefined): ApprovalView | undefined => typeof value === 'string' ? JSON.parse(value) as ApprovalView : undefined

export class RedisApprovalRecords implements ApprovalRecords {
  readonly #link: RedisLink

  constructor (link: RedisLink) {
    this.#link = link
  }

  async create (view: ApprovalView, keepMs: number): Promise<void> {
    await this.#link.client.multi()
      .set(recordKey(view.approvalId), JSON.stringify(view), 'PX', keepMs)
      .set(digestKey(view.caller, view.digest), view.approvalId, 'PX', keepMs)
      .zadd(PENDING, String(Date.parse(view.createdAt)), view.approvalId)
      .exec()
  }

  async read (approvalId: string): Promise<ApprovalView | undefined> {
    return parse(await this.#link.client.get(recordKey(approvalId)))
  }

  async pending (): Promise<ApprovalView[]> {
    const ids = await this.#link.client.zrange(PENDING, '0', '-1')
    if (ids.length === 0) return []
    const values = await this.#link.client.mget(ids.map(recordKey))
    const gone = ids.filter((_, i) => values[i] === null)
    // Forgotten records (their TTL passed) leave the set as they are found.
    if (gone.length > 0) await this.#link.client.zrem(PENDING, ...gone)
    return values.map(parse).filter((view): view is ApprovalView => view !== undefined && view.status === 'pending')
  }

  async byDigest (caller: string, digest: string): Promise<ApprovalView | undefined> {
    const id = await this.#link.client.get(digestKey(caller, digest))
    return id === null ? undefined : await this.read(id)
  }

  async transition (approvalId: string, from: ApprovalStatus, next: ApprovalView, keepMs: number): Promise<{ ok: boolean, view?: ApprovalView }> {
    const [ok, value] = await this.#link.client.eval(TRANSITION, 2, recordKey(approvalId), PENDING, from, JSON.stringify(next), keepMs, next.status, approvalId) as [number, string | null]
    return { ok: ok === 1, view: parse(value) }
  }
}
