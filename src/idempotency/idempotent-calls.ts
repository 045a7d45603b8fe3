// The Idempotency-Key semantics of POST /dispatch: the first request with a key runs and its answer
// is kept; the same key with the same request within the TTL answers that answer again without
// running anything; a duplicate that arrives while the first still runs waits for it; the same key
// with another request is refused (422). Keys belong to the caller (its API key), so two callers'
// keys never meet. With Redis the records are shared by the replicas; while it is unreachable each
// replica uses its own memory (a retry that lands on another replica may then run again).
import { createHash } from 'node:crypto'
import type { Logger } from 'pino'
import { CancelledError, IdempotencyKeyReusedError } from '../shared/errors.ts'
import { SharedStoreDownError, type Claim, type IdempotencyRecords } from './records.ts'

/** An answer to send: the status and the payload the route serialises as usual. */
export interface Answer {
  readonly status: number
  readonly payload: unknown
}

export interface IdempotentRequest {
  /** The Idempotency-Key header. */
  readonly key: string
  /** Whose key it is: the API key's name (`anonymous` on an open gateway). */
  readonly owner: string
  /** What the request asks, whole: route, body and the headers that change the call. */
  readonly fingerprint: string
  /** Fires when the caller goes away: a duplicate stops waiting. */
  readonly signal: AbortSignal
}

// Answers that say the call did not run to its end on the gateway's side (the client went away,
// the gateway was draining or shutting down): not kept, so that a retry runs the call.
const NOT_KEPT = new Set([499, 503])

/** The fingerprint of a request: equal for byte-equal JSON bodies with the same call headers. */
export function fingerprintOf (route: string, body: unknown, headers: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify([route, body, headers])).digest('base64url')
}

export class IdempotentCalls {
  readonly #memory: IdempotencyRecords
  readonly #shared: IdempotencyRecords | undefined
  readonly #logger: Logger

  constructor (options: { memory: IdempotencyRecords, shared?: IdempotencyRecords, logger: Logger }) {
    this.#memory = options.memory
    this.#shared = options.shared
    this.#logger = options.logger
  }

  /** Runs `execute` once per key and request; `replayed` says the answer is a kept one. */
  async run (request: IdempotentRequest, execute: () => Promise<Answer>): Promise<Answer & { replayed: boolean }> {
    // Hashed: a key of any characters makes a store key of fixed length that names no caller.
    const key = `idempotency:${createHash('sha256').update(`${request.owner}\n${request.key}`).digest('base64url')}`
    if (this.#shared !== undefined) {
      try {
        return await this.#runWith(this.#shared, key, request, execute)
      } catch (err) {
        // Thrown only before anything ran: the call runs once, on this replica's records.
        if (!(err instanceof SharedStoreDownError)) throw err
      }
    }
    return await this.#runWith(this.#memory, key, request, execute)
  }

  async #runWith (records: IdempotencyRecords, key: string, request: IdempotentRequest, execute: () => Promise<Answer>): Promise<Answer & { replayed: boolean }> {
    for (;;) {
      const found = await records.claim(key, request.fingerprint, request.owner)
      if ('complete' in found) return { ...await this.#execute(found, execute), replayed: false }
      if (found.fingerprint !== request.fingerprint) throw reused(request.key)
      const record = found.state === 'done' ? found : await records.settled(key, request.signal)
      if (request.signal.aborted) throw new CancelledError('the client went away while a call with the same Idempotency-Key was running')
      if (record === undefined) continue
      if (record.fingerprint !== request.fingerprint) throw reused(request.key)
      if (record.state === 'done') return { status: record.answer.status, payload: JSON.parse(record.answer.body), replayed: true }
    }
  }

  async #execute (claim: Claim, execute: () => Promise<Answer>): Promise<Answer> {
    let answer: Answer
    try {
      answer = await execute()
    } catch (err) {
      await claim.release().catch((failure: unknown) => { this.#logger.warn({ err: failure }, 'could not release an idempotency key') })
      throw err
    }
    try {
      if (NOT_KEPT.has(answer.status)) await claim.release()
      else await claim.complete({ status: answer.status, body: JSON.stringify(answer.payload) })
    } catch (err) {
      // The call ran: its answer goes to the caller even though a retry may not find it.
      this.#logger.warn({ err }, 'could not keep the answer of an idempotent call')
    }
    return answer
  }
}

function reused (key: string): InstanceType<typeof IdempotencyKeyReusedError> {
  return new IdempotencyKeyReusedError(`Idempotency-Key "${key}" was used for a different request (another tool, other arguments or other call headers); use a new key for a new request`)
}
