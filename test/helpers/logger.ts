// A real pino logger whose lines a test can read back.
import { Writable } from 'node:stream'
import pino, { type Logger } from 'pino'

export interface CapturedLogger {
  logger: Logger
  /** The stream behind it, to build another logger (e.g. with the gateway's redaction) writing here. */
  stream: Writable
  lines: () => Array<Record<string, unknown>>
  text: () => string
  /** Resolves with the first line, already written or still to come, that `match` accepts. */
  waitFor: (match: (line: Record<string, unknown>) => boolean) => Promise<Record<string, unknown>>
}

type Line = Record<string, unknown>

export function captureLogger (level: pino.LevelWithSilent = 'debug'): CapturedLogger {
  const chunks: string[] = []
  const waiters = new Set<{ match: (line: Line) => boolean, resolve: (line: Line) => void }>()
  const stream = new Writable({
    write (chunk, _encoding, done) {
      const text = chunk.toString()
      chunks.push(text)
      for (const waiter of waiters) {
        const line = text.split('\n').filter(Boolean).map((one: string) => JSON.parse(one) as Line).find(waiter.match)
        if (line === undefined) continue
        waiters.delete(waiter)
        waiter.resolve(line)
      }
      done()
    }
  })
  const logger = pino({ level }, stream)
  const text = (): string => chunks.join('')
  const lines = (): Line[] => text().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Line)
  return {
    logger,
    stream,
    text,
    lines,
    waitFor (match) {
      const found = lines().find(match)
      if (found !== undefined) return Promise.resolve(found)
      const { promise, resolve } = Promise.withResolvers<Line>()
      waiters.add({ match, resolve })
      return promise
    }
  }
}

/** One call to a recording logger: the level, the object exactly as passed (errors stay errors), the message. */
export interface RecordedLine { level: string, obj: Record<string, unknown>, msg?: string }

/**
 * A logger that keeps what it was given instead of serialising it, for code that takes a plain
 * `{ error, warn, info, debug }` logger and tests that check which error object was logged.
 */
export function recordingLogger () {
  const lines: RecordedLine[] = []
  const at = (level: string) => (obj: Record<string, unknown>, msg?: string) => { lines.push({ level, obj, msg }) }
  return { lines, logger: { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') } }
}
