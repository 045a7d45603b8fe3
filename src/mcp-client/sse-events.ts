// Server-sent events cut out of a byte stream, each kept whole (raw, byte for byte) so that it can
// be judged before it is passed on, and never more than a cap of one: past it the event is refused
// as it grows, not after it has been held. Lines end in CRLF, LF or CR, as the SSE format allows.
const LF = 0x0a
const CR = 0x0d
const COLON = 0x3a
const SPACE = 0x20

export type EventPiece =
  | { kind: 'event', raw: Buffer }
  /** The event being read went over the cap; the reader holds nothing of it any more. */
  | { kind: 'oversized', bytes: number }

export class SseEventSplitter {
  readonly #capBytes: number
  #parts: Buffer[] = []
  #bytes = 0
  /** The current line has had a byte other than its terminator. */
  #lineHasContent = false
  /** The last byte was a CR: an LF right after it belongs to the same line end. */
  #afterCr = false
  #refused = false

  constructor (capBytes: number) {
    this.#capBytes = capBytes
  }

  /** The events `chunk` completes, in order; at most one `oversized`, after which nothing more is read. */
  push (chunk: Uint8Array): EventPiece[] {
    const pieces: EventPiece[] = []
    if (this.#refused) return pieces
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    let start = 0
    let at = 0
    while (at < bytes.length) {
      const end = nextLineEnd(bytes, at)
      if (end === -1) {
        // Content after a CR: an LF at the start of the next chunk ends this line, not the CR's.
        if (at < bytes.length) {
          this.#lineHasContent = true
          this.#afterCr = false
        }
        break
      }
      const byte = bytes[end]
      const crlf = byte === LF && this.#afterCr && end === at
      this.#afterCr = byte === CR
      if (!crlf) {
        const blank = end === at && !this.#lineHasContent
        this.#lineHasContent = false
        if (blank) {
          if (!this.#keep(bytes.subarray(start, end + 1), pieces)) return pieces
          pieces.push({ kind: 'event', raw: Buffer.concat(this.#parts, this.#bytes) })
          this.#parts = []
          this.#bytes = 0
          start = end + 1
        }
      }
      at = end + 1
    }
    this.#keep(bytes.subarray(start), pieces)
    return pieces
  }

  /** Adds bytes to the event being read; false (and an `oversized` piece) once it passes the cap. */
  #keep (bytes: Buffer, pieces: EventPiece[]): boolean {
    if (bytes.length === 0) return true
    this.#bytes += bytes.length
    if (this.#bytes > this.#capBytes) {
      pieces.push({ kind: 'oversized', bytes: this.#bytes })
      this.#parts = []
      this.#refused = true
      return false
    }
    // Copied: the chunk's memory may be reused by the stream it came from.
    this.#parts.push(Buffer.from(bytes))
    return true
  }
}

function nextLineEnd (bytes: Buffer, from: number): number {
  const lf = bytes.indexOf(LF, from)
  const cr = bytes.indexOf(CR, from)
  if (lf === -1) return cr
  if (cr === -1) return lf
  return Math.min(lf, cr)
}

/** An event's `event` name (undefined: the default, `message`), the values of its `data` lines, and its `id`. */
export interface EventFields {
  type: string | undefined
  data: Buffer[]
  /** The event's id, as the SDK keeps it to resume the stream from (empty and NUL-bearing ones are none). */
  id: string | undefined
}

const NUL = 0x00

/** The fields of one raw event, read as the SDK's parser (eventsource-parser) reads them; comments and other fields are left out. */
export function eventFields (raw: Buffer): EventFields {
  const fields: EventFields = { type: undefined, data: [], id: undefined }
  let at = 0
  while (at < raw.length) {
    let end = nextLineEnd(raw, at)
    if (end === -1) end = raw.length
    const line = raw.subarray(at, end)
    at = end + 1
    if (line.length === 0 || line[0] === COLON) continue
    const colon = line.indexOf(COLON)
    const name = (colon === -1 ? line : line.subarray(0, colon)).toString('latin1')
    let value = colon === -1 ? Buffer.alloc(0) : line.subarray(colon + 1)
    if (value[0] === SPACE) value = value.subarray(1)
    if (name === 'data') fields.data.push(value)
    // An empty name is the default one: the SDK reads `event:` alone as a message.
    else if (name === 'event') fields.type = value.length === 0 ? undefined : value.toString('utf8')
    else if (name === 'id' && !value.includes(NUL)) fields.id = value.length === 0 ? undefined : value.toString('utf8')
  }
  return fields
}
