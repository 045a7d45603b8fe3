// One API key's budget of bytes in Redis, for all replicas together, so that one key's flood of kept
// results or Idempotency-Key answers cannot push another key's out (Redis's own maxmemory eviction
// is blind to keys). Per owner a sorted set (entry → when it expires) and a hash (entry → bytes,
// plus the running total), both living as long as the owner's newest entry. One script writes an
// entry: the owner's expired entries are forgotten, then its oldest deleted until the new one fits,
// then it is written with its TTL; atomic, so replicas writing for one owner at once never overshoot.
import { createHash } from 'node:crypto'
import type { RedisLink } from './redis-link.ts'

// KEYS: the entry, the owner's sorted set, the owner's hash. ARGV: the entry's key as the set names it
// (without the key prefix), its value, its TTL (ms), its bytes, the owner's cap, and the key prefix
// (a script's own commands get none, so the deletion of an evicted entry adds it).
// Answers 1 when written; 0 when the entry alone is over the cap (then any value under its key is deleted).
const KEEP = `
local set, hash, name, ttl, bytes, cap = KEYS[2], KEYS[3], ARGV[1], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local function forget (member)
  local held = tonumber(redis.call('HGET', hash, member) or '0')
  redis.call('HDEL', hash, member)
  redis.call('ZREM', set, member)
  redis.call('HINCRBY', hash, '#total', -held)
end
for _, member in ipairs(redis.call('ZRANGEBYSCORE', set, '-inf', now)) do forget(member) end
if redis.call('ZSCORE', set, name) then forget(name) end
if bytes > cap then
  redis.call('DEL', KEYS[1])
  return 0
end
while tonumber(redis.call('HGET', hash, '#total') or '0') + bytes > cap do
  local oldest = redis.call('ZRANGE', set, 0, 0)[1]
  if not oldest then break end
  forget(oldest)
  redis.call('DEL', ARGV[6] .. oldest)
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
redis.call('ZADD', set, now + ttl, name)
redis.call('HSET', hash, name, bytes)
redis.call('HINCRBY', hash, '#total', bytes)
for _, key in ipairs({ set, hash }) do
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end
return 1
`

export interface OwnerBudget {
  /** Where the owners' sets and hashes live (`result:`): one budget per namespace and owner. */
  readonly namespace: string
  /** Bytes one owner's entries may take. */
  readonly maxBytesPerKey: number
}

/**
 * Writes `value` under `key` for `owner` with its TTL, first deleting the owner's oldest entries of
 * the budget's namespace until it fits; false when the value alone is over the cap (not
 * written). Throws what Redis throws: the caller decides what a failure means.
 */
export async function keepWithinBudget (link: RedisLink, budget: OwnerBudget, owner: string, key: string, value: string, ttlMs: number): Promise<boolean> {
  // Hashed: an owner's name of any characters makes keys of fixed length that name no caller.
  const of = createHash('sha256').update(owner).digest('base64url')
  const prefix = link.client.options.keyPrefix ?? ''
  const written = await link.client.eval(KEEP, 3,
    key, `${budget.namespace}owner-set:${of}`, `${budget.namespace}owner-bytes:${of}`,
    key, value, ttlMs, Buffer.byteLength(value), budget.maxBytesPerKey, prefix)
  return written === 1
}
