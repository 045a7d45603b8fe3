// What the gateway does differently while the shared Redis is unreachable: said in /readyz and in
// the logs. Apart from the link itself, so that /readyz reads it without loading the Redis client.

/** What each user of Redis does instead while it is unreachable (/readyz and the logs say it). */
export const DEGRADED_WITHOUT_REDIS: readonly string[] = Object.freeze([
  'rate limits, and failed authentications, are counted by each replica on its own',
  'a result kept by one replica is readable only on that replica',
  'an Idempotency-Key is remembered only by the replica that ran the call',
  'a call made with Prefer: respond-async is answered for (GET /calls/:id) only by the replica that runs it'
])

export interface RedisStatus {
  connected: boolean
  /** The last failure, while disconnected (no address or credentials in it). */
  lastError?: string
}
