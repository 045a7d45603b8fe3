// Where the answers of calls made with an Idempotency-Key are remembered. A key is first claimed
// (`running`), then holds the answer (`done`) until its time to live ends. Two kinds of store: this
// process's memory, and Redis (shared by the replicas), which may fail: then it throws
// SharedStoreDownError and the caller falls back to memory.

/** The answer of a call, as replayed: its HTTP status and its body, serialised. */
export interface StoredAnswer {
  readonly status: number
  readonly body: string
}

/** What a key holds: a call in progress, or its answer; `fingerprint` identifies the request. */
export type IdempotencyRecord =
  | { readonly state: 'running', readonly fingerprint: string }
  | { readonly state: 'done', readonly fingerprint: string, readonly answer: StoredAnswer }

/** The claim of a key for one run: what ends it (with the answer, or without to let a retry run). */
export interface Claim {
  complete: (answer: StoredAnswer) => Promise<void>
  release: () => Promise<void>
}

export interface IdempotencyRecords {
  /**
   * Claims `key` for this request, or answers what the key holds already; `owner` (the API key's
   * name) is whose budget the answer counts in.
   */
  claim: (key: string, fingerprint: string, owner: string) => Promise<Claim | IdempotencyRecord>
  /**
   * Waits while `key` is running, until `signal` fires; answers what it holds then (undefined:
   * nothing, its run was released or its replica died, so the key may be claimed again).
   */
  settled: (key: string, signal: AbortSignal) => Promise<IdempotencyRecord | undefined>
}

/** The shared store could not answer (Redis down, slow or failing): the caller uses memory. */
export class SharedStoreDownError extends Error {}
