// Reads one page of a text file as `N|text` lines without loading the file: chunks are scanned for
// newlines, only the lines of the page are decoded and buffered (each at most what the budget could
// show), and the page stops at a whole line before the character budget. After the page, lines are
// only counted, and only when the caller wants the total.
import type { FileHandle } from 'node:fs/promises'

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
  chunkBytes?: number
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

export async function readLinePage (handle: FileHandle, request: PageRequest): Promise<Page> {
  const { offset, limit, budget, countAll, signal } = request
  const chunk = Buffer.alloc(request.chunkBytes ?? 64 * 1024)
  const shown: string[] = []
  const cutLines: number[] = []
  let phase: Phase = offset <= 1 ? 'collect' : 'skip'
  // Read through a function: the closures below change the phase, which TypeScript cannot see.
  const now = (): Phase => phase
  let used = 0
  let lineNo = 1
  let parts: Buffer[] = []
  let partBytes = 0
  let nextOffset: number | undefined
  let truncated = false

  const stop = (byBudget: boolean): void => {
    phase = 'done'
    nextOffset = lineNo
    truncated = byBudget
    parts = []
  }

  /** Line `lineNo` is complete (or the last one, without newline). */
  const emit = (): void => {
    if (shown.length >= limit) return stop(false)
    let entry = `${lineNo}|${Buffer.concat(parts, partBytes).toString('utf8').replace(/\r$/, '')}`
    const cost = entry.length + (shown.length > 0 ? 1 : 0)
    if (used + cost > budget) {
      if (shown.length > 0) return stop(true)
      // One line longer than the whole budget: show its head, so every page makes progress.
      entry = `${cutToChars(entry, budget - 80)} … [line ${lineNo} cut: longer than ${budget} characters]`
      cutLines.push(lineNo)
    }
    used += entry.length + (shown.length > 0 ? 1 : 0)
    shown.push(entry)
  }

  const keep = (bytes: Buffer): void => {
    if (shown.length >= limit) return stop(false)
    // A character takes at most 4 bytes: past this the line cannot fit what is left of the budget.
    const room = (budget - used) * 4 + 4 - partBytes
    if (bytes.length > room) {
      if (shown.length > 0) return stop(true)
      bytes = bytes.subarray(0, Math.max(0, room))
    }
    // Copied: the chunk buffer is reused by the next read.
    if (bytes.length > 0) parts.push(Buffer.from(bytes))
    partBytes += bytes.length
  }

  let position = 0
  let lastByte = NEWLINE
  while (true) {
    if (now() === 'done' && !countAll) break
    if (signal?.aborted) throw signal.reason
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, position)
    if (bytesRead === 0) break
    position += bytesRead
    const data = chunk.subarray(0, bytesRead)
    lastByte = data[bytesRead - 1]
    let start = 0
    while (start < data.length) {
      if (now() === 'done') {
        if (countAll) lineNo += countNewlines(data.subarray(start))
        break
      }
      const newline = data.indexOf(NEWLINE, start)
      const end = newline === -1 ? data.length : newline
      if (now() === 'collect') {
        keep(data.subarray(start, end))
        if (now() !== 'collect') continue
      }
      if (newline === -1) break
      if (now() === 'collect') emit()
      if (now() !== 'done') {
        lineNo += 1
        parts = []
        partBytes = 0
        if (now() === 'skip' && lineNo >= offset) phase = 'collect'
      } else {
        // `stop` ran in emit for this line: it was not shown, so count from its newline on.
        start = newline
        continue
      }
      start = newline + 1
    }
  }
  const reachedEnd = now() !== 'done' || countAll
  // A last line without newline is a line too.
  const partial = position > 0 && lastByte !== NEWLINE
  if (now() === 'collect' && partial) emit()
  let totalLines: number | undefined
  if (reachedEnd) totalLines = now() === 'done' ? lineNo - 1 + (partial ? 1 : 0) : (partial ? lineNo : lineNo - 1)
  return { content: shown.join('\n'), linesReturned: shown.length, nextOffset, truncated, cutLines, totalLines }
}
