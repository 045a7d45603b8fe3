// The audit trail: events are queued as they are recorded and turned into lines in batches (every
// FLUSH_MS, or at once past FLUSH_EVENTS), so a call pays an array push; the lines go to the file
// (rotated by size), to stdout, as OpenTelemetry log records, and to a ring in memory that GET /admin/audit pages through (a page
// flushes what is queued first, so it misses nothing recorded before it).
import type { AuditEvent, AuditRecorder } from './event.ts'
import { auditLine, type ArgumentsRedactor, type AuditLine } from './line.ts'
import { RotatingFile } from './rotating-file.ts'

/**
 * Longest an event waits for its batch. A timer, not setImmediate: under load one batch per turn of
 * the event loop was one more scheduling per call, which the echo benchmark showed.
 */
const FLUSH_MS = 50
/** Events queued past which the batch is written at once (a burst's memory stays bounded). */
const FLUSH_EVENTS = 1024

export interface AuditTrailOptions {
  /** The file lines are appended to; none: no file. */
  file?: { path: string, maxBytes: number, keep: number }
  /** Where lines are written besides the file (process.stdout); none: not written there. */
  stdout?: { write: (text: string) => unknown }
  /** Lines kept in memory for GET /admin/audit. */
  ringSize: number
  /** Given: a call's line carries its arguments, through this redaction (audit.arguments: true). */
  redact?: ArgumentsRedactor
  /** Where each batch's lines also go, as they are made (OpenTelemetry log records: otlp-logs.ts). */
  sink?: { write: (lines: readonly AuditLine[]) => void }
  /** Told once per failing write burst (a full disk must not fail calls). */
  onWriteError?: (err: unknown) => void
  now?: () => number
}

/** One page of lines: those after the cursor (or since the time), oldest first, and where the next page starts. */
export interface AuditPage {
  lines: string[]
  /** The seq of the last line returned (pass as `cursor` for the next page); the given cursor when none. */
  cursor: number
  /** Whether lines older than the ring holds were asked for (they are in the file, not here). */
  truncated: boolean
}

/** `app.audit`: recording, and what GET /admin/audit and shutdown need of the trail. */
export interface Audit extends AuditRecorder {
  page: (query: { since?: number, cursor?: number, limit: number }) => AuditPage
  flush: () => Promise<void>
}

export class AuditTrail implements Audit {
  readonly enabled = true
  readonly #options: AuditTrailOptions
  readonly #file: RotatingFile | undefined
  readonly #now: () => number
  #pending: Array<{ event: AuditEvent, time: number }> = []
  #timer: NodeJS.Timeout | undefined
  #seq = 0
  readonly #ring: AuditLine[] = []
  #writing: Promise<void> = Promise.resolve()
  #failing = false

  constructor (options: AuditTrailOptions) {
    this.#options = options
    this.#file = options.file === undefined ? undefined : new RotatingFile({ path: options.file.path, maxBytes: options.file.maxBytes, keep: options.file.keep })
    this.#now = options.now ?? Date.now
  }

  record (event: AuditEvent): void {
    const size = this.#pending.push({ event, time: this.#now() })
    if (size >= FLUSH_EVENTS) {
      this.#flush()
      return
    }
    if (this.#timer !== undefined) return
    this.#timer = setTimeout(() => { this.#flush() }, FLUSH_MS)
    // Never what keeps the process alive: closing the app flushes.
    this.#timer.unref()
  }

  /** Writes what is queued and waits for every write begun (shutdown, tests). */
  async flush (): Promise<void> {
    this.#flush()
    await this.#writing
  }

  /** Lines after `cursor` (a seq), else at or after `since` (ms), oldest first, at most `limit`. */
  page (query: { since?: number, cursor?: number, limit: number }): AuditPage {
    this.#flush()
    const ring = this.#ring
    const oldest = ring[0]
    let start: number
    if (query.cursor !== undefined) {
      start = oldest === undefined ? 0 : Math.max(0, query.cursor + 1 - oldest.seq)
    } else {
      const since = query.since ?? -Infinity
      start = ring.findIndex((line) => line.time >= since)
      if (start < 0) start = ring.length
    }
    const lines = ring.slice(start, start + query.limit)
    const truncated = oldest !== undefined && (query.cursor !== undefined ? query.cursor + 1 < oldest.seq : start === 0 && oldest.seq > 1 && (query.since ?? -Infinity) < oldest.time)
    return { lines: lines.map((line) => line.text), cursor: lines.at(-1)?.seq ?? query.cursor ?? 0, truncated }
  }

  #flush (): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#pending.length === 0) return
    const pending = this.#pending
    this.#pending = []
    let text = ''
    const lines: AuditLine[] = []
    // One batch's events mostly share their millisecond: its ISO text is made once.
    let lastTime = NaN
    let iso = ''
    for (const { event, time } of pending) {
      if (time !== lastTime) {
        lastTime = time
        iso = new Date(time).toISOString()
      }
      const line = auditLine(event, ++this.#seq, time, iso, this.#options.redact)
      this.#keep(line)
      lines.push(line)
      text += line.text + '\n'
    }
    this.#options.stdout?.write(text)
    this.#options.sink?.write(lines)
    const file = this.#file
    if (file !== undefined) this.#writing = this.#writing.then(async () => { await this.#append(file, text) })
  }

  #keep (line: AuditLine): void {
    const { ringSize } = this.#options
    if (ringSize <= 0) return
    this.#ring.push(line)
    // Trimmed in chunks: one splice per tenth of the ring, not one shift per line.
    if (this.#ring.length > ringSize + Math.ceil(ringSize / 10)) this.#ring.splice(0, this.#ring.length - ringSize)
  }

  async #append (file: RotatingFile, text: string): Promise<void> {
    try {
      await file.append(text)
      this.#failing = false
    } catch (err) {
      if (!this.#failing) this.#options.onWriteError?.(err)
      this.#failing = true
    }
  }
}

/** What `app.audit` is with the trail off: recording is a no-op. */
export const NO_AUDIT: Audit = Object.freeze({
  enabled: false,
  record () {},
  page: (query: { cursor?: number }) => ({ lines: [], cursor: query.cursor ?? 0, truncated: false }),
  flush: async () => {}
})
