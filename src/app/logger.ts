// The gateway's pino logger: JSON lines in production, pretty only on a terminal (and only when
// pino-pretty, a dev dependency, is installed). Authorization headers and argument names the
// config marks secret are redacted wherever they are logged.
import { once, type EventEmitter } from 'node:events'
import pino, { type DestinationStream, type Logger } from 'pino'
import type { GatewayConfig } from '../config/schema.ts'
import { withTimeout } from '../shared/timers.ts'

function prettyAvailable (): boolean {
  try {
    import.meta.resolve('pino-pretty')
    return true
  } catch {
    return false
  }
}

/** Paths pino must censor: credentials in headers, and secret arguments under `args`. */
export function redactionPaths (config: GatewayConfig): string[] {
  const paths = ['req.headers.authorization', 'req.headers["x-api-key"]', 'headers.authorization', 'headers["x-api-key"]']
  for (const name of config.logging.secretArguments) {
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`
    paths.push(`args${key}`, `args.*${key}`)
  }
  return paths
}

/** The stdout writer of each logger createLogger made with one. */
const stdoutDestinations = new WeakMap<Logger, EventEmitter>()

export function createLogger (config: GatewayConfig, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: config.logLevel,
    redact: { paths: redactionPaths(config), censor: '[redacted]' }
  }
  if (destination !== undefined) return pino(options, destination)
  if (process.stdout.isTTY && prettyAvailable()) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:standard' } } })
  }
  // What pino would make by itself (asynchronous, a write per line), named so that logLastLine knows it.
  const stdout = pino.destination({ dest: 1, sync: false })
  const logger = pino(options, stdout)
  stdoutDestinations.set(logger, stdout)
  return logger
}

/**
 * Says the process is done and waits (at most `timeoutMs`) until the logger has written all it
 * holds, before the process exits. Else the lines still queued are written by pino's synchronous
 * flush at exit, whose writer (sonic-boom 4) retries a failed write forever: with the log reader
 * gone (stdout a broken pipe) the process would never exit. Written asynchronously, a failed line
 * makes pino drop the ones after it, and the exit is clean. Only the stdout writer is waited for:
 * a terminal's pretty printer and a test's stream say nothing when done.
 */
export async function logLastLine (logger: Logger, message: string, timeoutMs: number): Promise<void> {
  const destination = stdoutDestinations.get(logger)
  // 'drain' once everything queued is written; a failure rejects it, which ends the wait as well.
  const written = destination === undefined ? undefined : once(destination, 'drain').catch(() => {})
  logger.info(message)
  if (written !== undefined) await withTimeout(written, timeoutMs, () => undefined)
}
