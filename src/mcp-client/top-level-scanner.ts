// Reads the top-level `id` of a JSON-RPC message streamed in pieces, in constant memory and one
// pass, without parsing the rest: what the stdio reader needs to answer a message too big to keep
// (its request fails, not the connection). Bytes, not characters: every byte the scan looks at is
// ASCII, and no byte of a multi-byte UTF-8 sequence is.
const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const COMMA = 0x2c
const OPENERS = new Set([0x7b, 0x5b])
const CLOSERS = new Set([0x7d, 0x5d])
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d])

// Member names longer than this are no name we look for ("method" with every letter escaped as
// \uXXXX is 36 bytes); ids longer than this are not kept.
const MAX_KEY_BYTES = 40
const MAX_ID_BYTES = 256

export class TopLevelScanner {
  /**
   * The top-level `id`: the value of its last `id` member, as JSON.parse keeps the last of duplicate
   * names; undefined when that value is no number or string, or too long to keep.
   */
  id: string | number | undefined
  /** Whether the object has a top-level `id` member at all, readable or not. */
  hasId = false
  /** Whether the object has a top-level `method`: a request or notification from the server, not an answer. */
  hasMethod = false
  #depth = 0
  #inString = false
  #escaped = false
  #expectKey = false
  #key: number[] | undefined
  #lastKey = ''
  #value: number[] | undefined

  feed (bytes: Uint8Array): void {
    // Inside a string nothing but a quote or a backslash matters: jump to the next of either (each
    // found once per pass, so the scan stays linear). Most of a big answer is one long text.
    let quote = -2
    let backslash = -2
    for (let i = 0; i < bytes.length; i++) {
      if (this.#inString && !this.#escaped && !this.#keeping()) {
        if (quote !== -1 && quote < i) quote = bytes.indexOf(QUOTE, i)
        if (backslash !== -1 && backslash < i) backslash = bytes.indexOf(BACKSLASH, i)
        i = Math.min(quote === -1 ? bytes.length : quote, backslash === -1 ? bytes.length : backslash)
        if (i === bytes.length) return
      }
      if (this.#inString) this.#stringByte(bytes[i])
      else this.#structuralByte(bytes[i])
    }
  }

  /** Whether the bytes being read belong to a member name or the id, which are kept. */
  #keeping (): boolean {
    return this.#depth === 1 && (this.#key !== undefined || this.#value !== undefined)
  }

  #stringByte (byte: number): void {
    this.#keep(byte)
    if (this.#escaped) {
      this.#escaped = false
    } else if (byte === BACKSLASH) {
      this.#escaped = true
    } else if (byte === QUOTE) {
      this.#inString = false
      if (this.#key !== undefined) {
        this.#lastKey = memberName(this.#key)
        this.#key = undefined
      }
    }
  }

  #structuralByte (byte: number): void {
    if (WHITESPACE.has(byte)) return
    if (byte === QUOTE) {
      this.#inString = true
      if (this.#depth === 1 && this.#expectKey) this.#key = []
      this.#keep(byte)
    } else if (OPENERS.has(byte)) {
      this.#depth++
      if (this.#depth === 1) this.#expectKey = byte === 0x7b
      else this.#value = undefined // an object or array is no id
    } else if (CLOSERS.has(byte)) {
      if (this.#depth === 1) this.#endValue()
      this.#depth--
    } else if (this.#depth === 1 && byte === COMMA) {
      this.#endValue()
      this.#expectKey = true
    } else if (this.#depth === 1 && byte === COLON) {
      this.#expectKey = false
      if (this.#lastKey === 'id') {
        // A later `id` replaces an earlier one, readable or not: the one the SDK routes by.
        this.#value = []
        this.id = undefined
        this.hasId = true
      }
      if (this.#lastKey === 'method') this.hasMethod = true
    } else {
      this.#keep(byte)
    }
  }

  /** A byte of the member name or of the id being read, within their bounds. */
  #keep (byte: number): void {
    if (this.#depth !== 1) return
    if (this.#key !== undefined) {
      // One byte past the bound marks the name as too long (memberName gives it no name).
      if (this.#key.length <= MAX_KEY_BYTES + 2) this.#key.push(byte)
    } else if (this.#value !== undefined) {
      if (this.#value.length < MAX_ID_BYTES) this.#value.push(byte)
      else this.#value = undefined
    }
  }

  #endValue (): void {
    const value = this.#value
    this.#value = undefined
    if (value === undefined || value.length === 0) return
    try {
      const id: unknown = JSON.parse(Buffer.from(value).toString('utf8'))
      if (typeof id === 'number' || typeof id === 'string') this.id = id
    } catch {
      // Not a JSON value: no id.
    }
  }
}

/** A member name from its bytes, quotes included, decoded as JSON.parse does ("i\\u0064" is "id"); '' when too long to be one we look for. */
function memberName (bytes: number[]): string {
  if (bytes.length > MAX_KEY_BYTES + 2) return ''
  const raw = Buffer.from(bytes)
  if (!raw.includes(BACKSLASH)) return raw.subarray(1, -1).toString('latin1')
  try {
    const name: unknown = JSON.parse(raw.toString('utf8'))
    return typeof name === 'string' ? name : ''
  } catch {
    return ''
  }
}
