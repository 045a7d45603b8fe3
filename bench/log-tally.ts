// The gateway's log lines (pino JSON on stdout) during a run, counted by level and message rather than
// copied to the terminal: a load that ends with connections closed mid-call logs a warning per call,
// hundreds of identical lines. The counts go into the report; lines that are not JSON pass through.
import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' }

/** "<level>: <msg> (<err.message>)" → how many times, over every gateway of the run. */
export const gatewayLogCounts = new Map<string, number>()

export function tallyLogLines (label: string, stream: Readable): void {
  createInterface({ input: stream }).on('line', (line) => {
    let entry: { level?: number, msg?: string, err?: { message?: string } }
    try {
      entry = JSON.parse(line)
    } catch {
      process.stderr.write(`${label}: ${line}\n`)
      return
    }
    const key = `${LEVELS[entry.level ?? 0] ?? entry.level}: ${entry.msg ?? ''}${entry.err?.message === undefined ? '' : ` (${entry.err.message})`}`
    gatewayLogCounts.set(key, (gatewayLogCounts.get(key) ?? 0) + 1)
  })
}
