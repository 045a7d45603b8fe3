// Keeps the full text of results that dispatch cut to their size cap, so that nothing is lost to
// truncation: the caller (its model through read_result, or its code through GET /results/:id)
// reads the rest by id; and the images and sounds a result came with, which only some answers can
// carry inline (GET /results/:id/media/:n serves them). Bounded four ways: a cap on all results together, a cap per
// owner, a cap per result (a larger one is not kept), and a time to live. An owner over its own cap
// loses its own oldest results; past the total cap the owner holding the most loses its oldest
// (src/shared/owner-budgets.ts), so one key's flood never evicts another key's results.
// Each result belongs to the caller that made the call (its API key's name, `anonymous` on an open
// gateway, `stdio` for the local MCP client): for any other caller its id does not exist. Ids are 144 random bits, never guessable.
import { randomBytes } from 'node:crypto'
import { defaultBytesPerKey, OwnerBudgets } from '../shared/owner-budgets.ts'
import { MAX_TIMER_MS } from '../shared/timers.ts'
import type { ToolMedia } from '../registry/types.ts'

/** One image or sound of a kept result, as bytes, for GET /results/:id/media/:n. */
export interface KeptMedia {
  readonly kind: ToolMedia['kind']
  readonly mimeType: string
  readonly data: Buffer
}

export interface ResultStoreLimits {
  /** Bytes all kept results may take together; 0 keeps none. */
  maxTotalBytes: number
  /** Bytes one owner's kept results may take together; default a quarter of maxTotalBytes. */
  maxBytesPerKey?: number
  /** A result larger than this (in bytes, 2 per UTF-16 code unit) is not kept. */
  maxResultBytes: number
  /** How long a result is kept after its call. */
  ttlMs: number
}

interface Kept {
  readonly owner: string
  /** UTF-16LE: 2 bytes per code unit, so slices by character offset are exact and the size is known. */
  readonly text: Buffer
  readonly media: readonly KeptMedia[]
  /** The text's bytes and the media's together: what the store's caps count. */
  readonly bytes: number
  readonly expiresAt: number
}

/** A kept result as another replica reads it (media base64, as the tool answered them). */
export interface SharedResult {
  readonly owner: string
  readonly text: string
  readonly media: readonly ToolMedia[]
}

/** Where results are also kept for the other replicas (Redis); neither method ever rejects. */
export interface SharedResults {
  put: (id: string, result: SharedResult, ttlMs: number) => Promise<void>
  get: (id: string) => Promise<{ result: SharedResult, ttlMs: number } | undefined>
}

/** Characters (UTF-16 code units) the text of a result has. */
export interface KeptResult {
  readonly id: string
  readonly length: number
  /** The characters in [start, end), never ending between the two halves of a surrogate pair. */
  slice: (start: number, end: number) => string
  /** The images and sounds the result came with, in order (none for most results). */
  readonly media: readonly KeptMedia[]
}

export class ResultStore {
  readonly limits: Readonly<Required<ResultStoreLimits>>
  // A Map iterates in insertion order, which is also expiry order (one TTL for all): the first
  // entry is always the oldest, for eviction and for expiry alike. Only a result read from another
  // replica (its TTL already running) may expire before older ones: get() checks each.
  readonly #kept = new Map<string, Kept>()
  readonly #now: () => number
  readonly #open: boolean
  readonly #budgets: OwnerBudgets
  #shared: SharedResults | undefined = undefined
  #timer: NodeJS.Timeout | undefined = undefined

  /**
   * `open`: the gateway has no API keys, so a caller without a principal is `anonymous` (everyone
   * is); with keys, a caller without one owns nothing and reads nothing.
   */
  constructor (limits: ResultStoreLimits, options: { open: boolean, now?: () => number }) {
    this.limits = Object.freeze({ ...limits, maxBytesPerKey: limits.maxBytesPerKey ?? defaultBytesPerKey(limits.maxTotalBytes) })
    this.#budgets = new OwnerBudgets(this.limits)
    this.#open = options.open
    this.#now = options.now ?? Date.now
  }

  /** Bytes the kept results take now: never more than limits.maxTotalBytes. */
  get totalBytes (): number {
    return this.#budgets.totalBytes
  }

  /** Bytes `owner`'s kept results take now: never more than limits.maxBytesPerKey. */
  bytesOf (owner: string): number {
    return this.#budgets.bytesOf(owner)
  }

  get size (): number {
    return this.#kept.size
  }

  /** Keeps every result in `shared` as well, for the other replicas (REDIS_URL). */
  share (shared: SharedResults): void {
    this.#shared = shared
  }

  /**
   * Keeps `text` (and its media, base64) for `owner` and answers its id; undefined when it is not
   * kept (no owner to give it to, over the per-result or per-owner cap, or a store of size 0), and the caller
   * must not promise it. Media count in the caps by their decoded size.
   */
  keep (principal: string | undefined, text: string, media: readonly ToolMedia[] = []): string | undefined {
    const owner = this.#ownerOf(principal)
    if (owner === undefined) return undefined
    const id = `res_${randomBytes(18).toString('base64url')}`
    return this.#insert(id, { owner, text, media }, this.limits.ttlMs) ? id : undefined
  }

  /** keep(), then the same result in the shared store, so that any replica reads it. */
  async keepShared (principal: string | undefined, text: string, media: readonly ToolMedia[] = []): Promise<string | undefined> {
    const id = this.keep(principal, text, media)
    if (id !== undefined && this.#shared !== undefined) {
      await this.#shared.put(id, { owner: this.#ownerOf(principal) as string, text, media }, this.limits.ttlMs)
    }
    return id
  }

  /** get(), else the result another replica kept (then kept here too, for the pages that follow). */
  async find (principal: string | undefined, id: string): Promise<KeptResult | undefined> {
    const here = this.get(principal, id)
    if (here !== undefined || this.#shared === undefined || this.#ownerOf(principal) === undefined) return here
    const there = await this.#shared.get(id)
    if (there === undefined) return undefined
    this.#insert(id, there.result, there.ttlMs)
    return this.get(principal, id)
  }

  #insert (id: string, { owner, text, media }: SharedResult, ttlMs: number): boolean {
    const kept = media.map(({ kind, mimeType, data }) => ({ kind, mimeType, data: Buffer.from(data, 'base64') }))
    const bytes = kept.reduce((sum, item) => sum + item.data.length, text.length * 2)
    if (bytes > this.limits.maxResultBytes || !this.#budgets.fits(bytes)) return false
    this.#expire()
    const known = this.#kept.get(id)
    // Two reads of the same id from another replica at once: the second replaces the first.
    if (known !== undefined) this.#drop(id, known)
    for (let victim = this.#budgets.nextVictim(owner, bytes); victim !== undefined; victim = this.#budgets.nextVictim(owner, bytes)) {
      this.#drop(victim.key, this.#kept.get(victim.key)!)
    }
    this.#kept.set(id, { owner, text: Buffer.from(text, 'utf16le'), media: kept, bytes, expiresAt: this.#now() + ttlMs })
    this.#budgets.add(owner, id, bytes)
    this.#schedule()
    return true
  }

  /** The result `id` of this caller; undefined when unknown, expired or another caller's (all alike). */
  get (principal: string | undefined, id: string): KeptResult | undefined {
    const owner = this.#ownerOf(principal)
    this.#expire()
    const kept = this.#kept.get(id)
    if (kept === undefined || owner === undefined || kept.owner !== owner || kept.expiresAt <= this.#now()) return undefined
    const { text, media } = kept
    const length = text.length / 2
    return {
      id,
      length,
      media,
      slice (start, end) {
        // A high surrogate as the last unit would leave its pair's second half for the next read:
        // end before the pair, or (a one-unit read) after it, so that every read moves on.
        if (end < length && end > start && isHighSurrogate(text.readUInt16LE((end - 1) * 2))) end += end - start > 1 ? -1 : 1
        return text.toString('utf16le', start * 2, end * 2)
      }
    }
  }

  /** Forgets every result and stops the expiry timer (the gateway shuts down). */
  clear (): void {
    for (const [id, kept] of this.#kept) this.#drop(id, kept)
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
  }

  #ownerOf (principal: string | undefined): string | undefined {
    return principal ?? (this.#open ? 'anonymous' : undefined)
  }

  #drop (id: string, kept: Kept): void {
    this.#kept.delete(id)
    this.#budgets.remove(kept.owner, id)
  }

  #expire (): void {
    const now = this.#now()
    for (const [id, kept] of this.#kept) {
      if (kept.expiresAt > now) break
      this.#drop(id, kept)
    }
  }

  /** One timer for the oldest result, so memory is given back on time even when nobody asks. */
  #schedule (): void {
    if (this.#timer !== undefined) return
    const oldest = this.#kept.values().next().value
    if (oldest === undefined) return
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.#expire()
      this.#schedule()
    }, Math.min(MAX_TIMER_MS, Math.max(0, oldest.expiresAt - this.#now()) + 1))
    // Kept results are no reason to keep the process alive.
    this.#timer.unref()
  }
}

function isHighSurrogate (unit: number): boolean {
  return unit >= 0xD800 && unit <= 0xDBFF
}
