// Reads one page of a text file as `N|text` lines without loading the file: chunks are scanned for
// newlines, only the lines of the page are decoded and buffered (each at most what the budget could
// show), and the page stops at a whole line before the character budget. After the page, lines are
// only counted, and only when the caller wants the total.

/** What a page is read from: a FileHandle, or a plain descriptor (read-descriptor.ts). */
export interface PageSource {
  read: (buffer: Buffer, offset: number, length: number, position: number) => Promise<{ bytesRead: number }>
}

export interface PageRequest {
  /** First line to show, 1-based. */
  offset: number
  /** Most lines to show. */
  limit: number
  /** Most characters of output (numbers, bars and newlines included). */
  budget: number
  /** Keep counting lines after the page, to report the total. */
  countAll: boolean
  signal?: AbortSignal
  /** Bytes per read (default 64 KiB; a file known smaller is read in one). */
  chunkBytes?: number
  /** The file's size from its fstat, when known: a small file takes one read, and no read for the end. */
  size?: number
  /** Sees the first bytes read (the start of the file) before they are scanned; may throw. */
  inspectStart?: (start: Buffer) => void
}

export interface Page {
  /** The numbered lines, joined with '\n'. */
  content: string
  linesReturned: number
  /** Line number where the next page starts, when lines remain after this one. */
  nextOffset: number | undefined
  /** True when the character budget ended the page before `limit` lines. */
  truncated: boolean
  /** Lines too long for one page, shown cut. */
  cutLines: number[]
  /** Total lines of the file, when the whole file was scanned. */
  totalLines: number | undefined
}

const NEWLINE = 0x0a

type Phase = 'skip' | 'collect' | 'done'

function cutToChars (text: string, max: number): string {
  const head = text.slice(0, Math.max(0, max))
  return /[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head
}

function countNewlines (data: Buffer): number {
  let count = 0
  let at = data.indexOf(NEWLINE)
  while (at !== -1) {
    count += 1
    at = data.indexOf(NEWLINE, at + 1)
  }
  return count
}

/** One page being scanned: the line it is at, the lines it keeps, and how it ended. */
class PageScan {
  readonly #offset: number
  readonly #limit: number
  readonly #budget: number
  readonly #countAll: boolean
  #phase: Phase
  readonly #shown: string[] = []
  readonly #cutLines: number[] = []
  /** Characters of `#shown`, with the newlines between them. */
  #used = 0
  #lineNo = 1
  /** The bytes of line `#lineNo` read so far. */
  #parts: Buffer[] = []
  #partBytes = 0
  #nextOffset: number | undefined
  #truncated = false

  constructor (request: PageRequest) {
    this.#offset = request.offset
    this.#limit = request.limit
    this.#budget = request.budget
    this.#countAll = request.countAll
    this.#phase = request.offset <= 1 ? 'collect' : 'skip'
  }

  /** Whether the next chunk is still of use: to the page, or to the count of lines after it. */
  get wantsMore (): boolean {
    return this.#phase !== 'done' || this.#countAll
  }

  /** Takes the next chunk of the file. */
  scan (data: Buffer): void {
    let start = 0
    while (start < data.length) {
      if (this.#phase === 'done') {
        if (this.#countAll) this.#lineNo += countNewlines(data.subarray(start))
        return
      }
      const newline = data.indexOf(NEWLINE, start)
      const end = newline === -1 ? data.length : newline
      // The page ended inside this line: the loop goes on counting from its start.
      if (this.#phase === 'collect' && !this.#keep(data.subarray(start, end))) continue
      if (newline === -1) return
      if (this.#phase === 'collect' && !this.#emit()) {
        // The page ended before this line, which was not shown: count from its newline on.
        start = newline
        continue
      }
      this.#nextLine()
      start = newline + 1
    }
  }

  /** The page, once the reads are over; `partial` when the file ends with a line without newline. */
  finish (partial: boolean): Page {
    const reachedEnd = this.wantsMore
    if (this.#phase === 'collect' && partial) this.#emit()
    const totalLines = reachedEnd ? this.#lineNo - 1 + (partial ? 1 : 0) : undefined
    return {
      content: this.#shown.join('\n'),
      linesReturned: this.#shown.length,
      nextOffset: this.#nextOffset,
      truncated: this.#truncated,
      cutLines: this.#cutLines,
      totalLines
    }
  }

  /** Adds bytes of the current line; false when the page ended instead. */
  #keep (bytes: Buffer): boolean {
    if (this.#shown.length >= this.#limit) return this.#stop(false)
    // A character takes at most 4 bytes: past this the line cannot fit what is left of the budget.
    const room = (this.#budget - this.#used) * 4 + 4 - this.#partBytes
    if (bytes.length > room) {
      if (this.#shown.length > 0) return this.#stop(true)
      bytes = bytes.subarray(0, Math.max(0, room))
    }
    // Copied: the chunk buffer is reused by the next read.
    if (bytes.length > 0) this.#parts.push(Buffer.from(bytes))
    this.#partBytes += bytes.length
    return true
  }

  /** Line `#lineNo` is complete (or the last one, without newline): shows it; false when the page ended before it. */
  #emit (): boolean {
    const separator = this.#shown.length > 0 ? 1 : 0
    if (this.#shown.length >= this.#limit) return this.#stop(false)
    let entry = `${this.#lineNo}|${Buffer.concat(this.#parts, this.#partBytes).toString('utf8').replace(/\r$/, '')}`
    if (this.#used + entry.length + separator > this.#budget) {
      if (this.#shown.length > 0) return this.#stop(true)
      // One line longer than the whole budget: show its head, so every page makes progress.
      entry = `${cutToChars(entry, this.#budget - 80)} … [line ${this.#lineNo} cut: longer than ${this.#budget} characters]`
      this.#cutLines.push(this.#lineNo)
    }
    this.#used += entry.length + separator
    this.#shown.push(entry)
    return true
  }

  #nextLine (): void {
    this.#lineNo += 1
    this.#parts = []
    this.#partBytes = 0
    if (this.#phase === 'skip' && this.#lineNo >= this.#offset) this.#phase = 'collect'
  }

  #stop (byBudget: boolean): false {
    this.#phase = 'done'
    this.#nextOffset = this.#lineNo
    this.#truncated = byBudget
    this.#parts = []
    return false
  }
}

const DEFAULT_CHUNK_BYTES = 64 * 1024

/** One read fits a file known smaller than a chunk (with a byte more, to see that it did not grow). */
function chunkSize (request: PageRequest): number {
  const chunk = request.chunkBytes ?? DEFAULT_CHUNK_BYTES
  return request.size === undefined ? chunk : Math.max(1, Math.min(chunk, request.size + 1))
}

export async function readLinePage (handle: PageSource, request: PageRequest): Promise<Page> {
  const { signal, size, inspectStart } = request
  const scan = new PageScan(request)
  const chunk = Buffer.allocUnsafe(chunkSize(request))
  let position = 0
  let lastByte = NEWLINE
  while (scan.wantsMore) {
    if (signal?.aborted) throw signal.reason
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, position)
    if (bytesRead === 0) break
    if (position === 0) inspectStart?.(chunk.subarray(0, bytesRead))
    position += bytesRead
    lastByte = chunk[bytesRead - 1]
    scan.scan(chunk.subarray(0, bytesRead))
    // A short read at or past the size fstat gave is the end: no read only to be told so.
    if (size !== undefined && bytesRead < chunk.length && position >= size) break
  }
  // A last line without newline is a line too.
  return scan.finish(position > 0 && lastByte !== NEWLINE)
}
