// Bounded capture of a command's output: the first 40 % and a rolling last 60 % of the cap, so a
// command that prints gigabytes costs a fixed amount of memory and the model still sees how it
// started and how it ended (the end of a log is where the error usually is).

export const HEAD_SHARE = 0.4

export interface OutputSlice {
  /** The kept text from `from` on, with a marker where characters were dropped. */
  text: string
  /** Characters of the requested range that were dropped from the middle. */
  omitted: number
  /** Where the next read should start to get only newer output (the total so far). */
  next: number
}

export function omissionMarker (omitted: number, total: number): string {
  return `\n[... ${omitted} characters omitted of ${total} ...]\n`
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

export class CappedOutput {
  readonly maxChars: number
  readonly headLimit: number
  readonly tailLimit: number
  #head = ''
  #headClosed = false
  // Trimmed only when it reaches twice the limit, so the copying cost stays linear in the input.
  #tail = ''
  #total = 0

  constructor (maxChars: number) {
    if (!Number.isInteger(maxChars) || maxChars < 10) throw new RangeError(`maxChars must be an integer >= 10, got ${maxChars}`)
    this.maxChars = maxChars
    this.headLimit = Math.floor(maxChars * HEAD_SHARE)
    this.tailLimit = maxChars - this.headLimit
  }

  /** Characters written so far (UTF-16 code units, as String#length counts them). */
  get totalChars (): number {
    return this.#total
  }

  /** Characters dropped from the middle so far. */
  get omittedChars (): number {
    return this.#total - this.#head.length - this.#keptTail().length
  }

  /** Characters held in memory right now (at most head + 2 × tail + one chunk). */
  get retainedChars (): number {
    return this.#head.length + this.#tail.length
  }

  write (text: string): void {
    if (text.length === 0) return
    this.#total += text.length
    let rest = text
    if (!this.#headClosed) {
      let take = Math.min(this.headLimit - this.#head.length, rest.length)
      // Never end the head inside a surrogate pair: the pair goes to the tail whole.
      if (take > 0 && take < rest.length && isHighSurrogate(rest.charCodeAt(take - 1))) take--
      this.#head += rest.slice(0, take)
      rest = rest.slice(take)
      if (rest.length > 0) this.#headClosed = true
    }
    if (rest.length === 0) return
    this.#tail += rest
    if (this.#tail.length >= 2 * this.tailLimit) this.#tail = this.#keptTail()
  }

  /** The last tailLimit characters of the tail, not starting inside a surrogate pair. */
  #keptTail (): string {
    if (this.#tail.length <= this.tailLimit) return this.#tail
    let start = this.#tail.length - this.tailLimit
    if (isLowSurrogate(this.#tail.charCodeAt(start))) start++
    return this.#tail.slice(start)
  }

  /** The kept output from character `from` of the whole stream on (0 = everything kept). */
  read (from = 0): OutputSlice {
    const total = this.#total
    const start = Math.max(0, Math.min(Math.floor(from), total))
    const head = this.#head
    const tail = this.#keptTail()
    const tailStart = total - tail.length
    let text = start < head.length ? head.slice(start) : ''
    const gapStart = Math.max(start, head.length)
    const omitted = Math.max(0, tailStart - gapStart)
    if (omitted > 0) text += omissionMarker(omitted, total)
    text += tail.slice(Math.max(0, start - tailStart))
    return { text, omitted, next: total }
  }

  /** Everything kept, with the marker if the middle was dropped. */
  toString (): string {
    return this.read(0).text
  }
}
