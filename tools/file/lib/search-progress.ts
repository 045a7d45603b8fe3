// What one search_files run has found so far and what stops it: the page of results (those before
// the page are counted, one after it tells that more exist), the deadline, the caller's signal.
import { FILE_LIMITS } from './limits.ts'
import type { SearchItem, SearchOutcome } from './search-types.ts'
import { newWalkCounters } from './walk.ts'

export class SearchProgress {
  readonly deadline = Date.now() + FILE_LIMITS.searchDeadlineMs
  readonly items: SearchItem[] = []
  readonly skipped: Record<string, number> = {}
  readonly counters = newWalkCounters()
  /** Results counted so far, on the page or before it. */
  seen = 0
  /** A result exists after the page. */
  more = false
  stoppedBy: string | undefined
  filesScanned = 0
  readonly #offset: number
  /** Results up to the end of the page. */
  readonly #wanted: number
  readonly #signal: AbortSignal

  constructor (offset: number, limit: number, signal: AbortSignal) {
    this.#offset = offset
    this.#wanted = offset + limit
    this.#signal = signal
  }

  /** Results still to find: the rest of the page and one more, to learn whether more exist. */
  get wantedMatches (): number {
    return this.#wanted - this.seen + 1
  }

  /** Whether the search is over: the page is full, or a bound (signal, deadline, a set reason) stopped it. */
  stopped (): boolean {
    if (this.stoppedBy !== undefined || this.more) return true
    if (this.#signal.aborted) this.stoppedBy = 'the call was cancelled'
    else if (Date.now() > this.deadline) this.stoppedBy = `the ${FILE_LIMITS.searchDeadlineMs} ms time limit was reached`
    return this.stoppedBy !== undefined
  }

  /** Counts a result; keeps it when it falls on the page; false once the page is full and one more exists. */
  add (item: SearchItem): boolean {
    if (this.seen >= this.#wanted) {
      this.more = true
      return false
    }
    if (this.seen >= this.#offset) this.items.push(item)
    this.seen += 1
    return true
  }

  outcome (): SearchOutcome {
    const { items, more, stoppedBy, filesScanned, skipped, counters } = this
    return { items, more, stoppedBy, filesScanned, skipped, counters }
  }
}
