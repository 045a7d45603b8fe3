// How failed authentications are counted for all replicas together (Redis: redis-failure-counter.ts).

/** Counts one failure of `address` for all replicas: the count and the window's time left; undefined when it cannot. */
export type SharedFailureCounter = (address: string, windowMs: number) => Promise<{ count: number, ttlMs: number } | undefined>
