// `tool-gateway --stdio`: the whole process serves one MCP client on stdin/stdout. stdout is the
// protocol's alone: the log goes to stderr, and anything else writing to process.stdout (a
// plugin's console.log, a stray print in a tool) is sent to stderr too, since one stray line there
// breaks the client's JSON-RPC framing. Closing stdin or SIGTERM/SIGINT drains and exits 0.
import { Writable } from 'node:stream'
import closeWithGrace from 'close-with-grace'
import pino from 'pino'
import { buildApp } from '../app/app.ts'
import type { GatewayConfig } from '../config/schema.ts'
import { UnknownToolsetError } from '../shared/errors.ts'
import { createLogger } from '../app/logger.ts'
import { drainAndClose } from './shutdown.ts'
import { serveStdio } from '../mcp-server/stdio.ts'

/**
 * Keeps fd 1 for JSON-RPC: answers a stream that writes there, and turns every later write to
 * process.stdout (console.log and console.info go through it) into a write to stderr. Call it
 * before plugins and tools load. A child process given fd 1 itself is out of its reach; the
 * gateway's own children (terminal commands, MCP servers) get pipes.
 */
export function claimStdout (): Writable {
  const stdout = process.stdout
  const write = stdout.write.bind(stdout)
  stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write
  return new Writable({
    write (chunk: Buffer, _encoding, done) { write(chunk, done) },
    // Errors (the client closed its end) reach the transport through this stream.
    construct (done) {
      stdout.on('error', (err) => { this.destroy(err) })
      done()
    }
  })
}

function fail (code: number, message: string): never {
  process.stderr.write(`tool-gateway: ${message}\n`)
  process.exit(code)
}

export interface StdioCommand {
  toolsets?: string[]
  disabled?: string[]
}

export async function runStdio (config: GatewayConfig, command: StdioCommand, output: Writable): Promise<void> {
  // Synchronous: lines written just before process.exit are not lost.
  const logger = createLogger(config, pino.destination({ dest: 2, sync: true }))
  let app
  try {
    app = await buildApp(config, { logger })
    await app.ready()
  } catch (err) {
    fail(1, `cannot start: ${(err as Error).message}`)
  }
  let connection
  try {
    connection = await serveStdio(app, { input: process.stdin, output, ...command })
  } catch (err) {
    await app.close()
    if (err instanceof UnknownToolsetError) fail(2, `--toolsets/--disabled: ${err.message}`)
    throw err
  }
  const { shutdownGraceMs } = config.http
  const shutdown = closeWithGrace({ delay: shutdownGraceMs + 5_000, logger }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'fatal error, shutting down')
    else logger.info({ signal: signal ?? 'end of input' }, 'shutting down')
    // Calls still running finish within the grace (after end of input the SDK has aborted them).
    await drainAndClose(app, shutdownGraceMs)
    await connection.close()
  })
  connection.closed.then(() => shutdown.close(), () => {})
}
