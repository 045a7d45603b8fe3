// Byte budgets per owner (API key) inside one bounded store, so that one key's flood cannot evict
// another key's entries: the kept results and the Idempotency-Key answers. An owner over its own
// budget loses its own oldest entry; past the store's total the owner holding the most loses its
// oldest, so an owner under its fair share never pays for one over it.

export interface OwnerBudgetLimits {
  /** Bytes all owners' entries may take together. */
  readonly maxTotalBytes: number
  /** Bytes one owner's entries may take together. */
  readonly maxBytesPerKey: number
}

/** An owner's budget when the config leaves it out: one key never holds more than a quarter of the store. */
export function defaultBytesPerKey (maxTotalBytes: number): number {
  return Math.floor(maxTotalBytes / 4)
}

interface Holding {
  bytes: number
  /** Insertion order is age order: the first entry is the oldest. */
  readonly entries: Map<string, number>
}

export class OwnerBudgets {
  readonly limits: OwnerBudgetLimits
  readonly #owners = new Map<string, Holding>()
  #totalBytes = 0

  constructor (limits: OwnerBudgetLimits) {
    this.limits = limits
  }

  get totalBytes (): number {
    return this.#totalBytes
  }

  bytesOf (owner: string): number {
    return this.#owners.get(owner)?.bytes ?? 0
  }

  /** Whether an entry of `bytes` may be kept at all (once others made room). */
  fits (bytes: number): boolean {
    return bytes <= this.limits.maxBytesPerKey && bytes <= this.limits.maxTotalBytes
  }

  add (owner: string, key: string, bytes: number): void {
    let holding = this.#owners.get(owner)
    if (holding === undefined) {
      holding = { bytes: 0, entries: new Map() }
      this.#owners.set(owner, holding)
    }
    holding.entries.set(key, bytes)
    holding.bytes += bytes
    this.#totalBytes += bytes
  }

  remove (owner: string, key: string): void {
    const holding = this.#owners.get(owner)
    const bytes = holding?.entries.get(key)
    if (holding === undefined || bytes === undefined) return
    holding.entries.delete(key)
    holding.bytes -= bytes
    this.#totalBytes -= bytes
    if (holding.entries.size === 0) this.#owners.delete(owner)
  }

  /**
   * The next entry to drop so that `owner` may add `bytes` (the caller drops it, remove() included,
   * and asks again); undefined once they fit. Only ever `owner`'s own, or the largest owner's.
   */
  nextVictim (owner: string, bytes: number): { owner: string, key: string } | undefined {
    const own = this.#owners.get(owner)
    if (own !== undefined && own.bytes + bytes > this.limits.maxBytesPerKey) return { owner, key: oldest(own) }
    if (this.#totalBytes + bytes <= this.limits.maxTotalBytes) return undefined
    let largest: [string, Holding] | undefined
    for (const entry of this.#owners) {
      if (largest === undefined || entry[1].bytes > largest[1].bytes) largest = entry
    }
    return largest === undefined ? undefined : { owner: largest[0], key: oldest(largest[1]) }
  }
}

function oldest (holding: Holding): string {
  return holding.entries.keys().next().value as string
}
