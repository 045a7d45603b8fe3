// A real pino logger whose lines a test can read back.
import { Writable } from 'node:stream'
import pino, { type Logger } from 'pino'

export interface CapturedLogger {
  logger: Logger
  /** The stream behind it, to build another logger (e.g. with the gateway's redaction) writing here. */
  stream: Writable
  lines: () => Array<Record<string, unknown>>
  text: () => string
}

export function captureLogger (level: pino.LevelWithSilent = 'debug'): CapturedLogger {
  const chunks: string[] = []
  const stream = new Writable({
    write (chunk, _encoding, done) {
      chunks.push(chunk.toString())
      done()
    }
  })
  const logger = pino({ level }, stream)
  const text = (): string => chunks.join('')
  return {
    logger,
    stream,
    text,
    lines: () => text().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>)
  }
}
