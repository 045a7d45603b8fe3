// What the gateway does around a stdio MCP server's process: the minimal environment it starts
// with, the process handle behind the SDK transport, and its stderr read line by line into the log
// under a rate cap (a chatty server must not flood the gateway's log).
import type { ChildProcess } from 'node:child_process'
import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Readable } from 'node:stream'
import { DEFAULT_INHERITED_ENV_VARS, StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import type { Logger } from 'pino'

/**
 * What a stdio child inherits from the gateway; everything else it gets from its own `env`. The
 * XDG base folders say where a server keeps its config, data, cache and state: without them one
 * started under a service manager writes into HOME, or cannot find the login it was set up with.
 */
export const CHILD_ENV_ALLOWLIST = Object.freeze([
  'PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'TZ', 'USER',
  'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME', 'XDG_RUNTIME_DIR'
])
const MAX_LINE = 2_000
const MAX_REMEMBERED = 300

/**
 * Why the child cannot start in `cwd`, or undefined. Node reports a missing working folder as
 * `spawn <command> ENOENT`, which reads as a missing command: this says what is really wrong.
 */
export function workingFolderProblem (cwd: string | undefined): string | undefined {
  if (cwd === undefined) return undefined
  const where = resolve(cwd) === cwd ? `"${cwd}"` : `"${cwd}" (${resolve(cwd)})`
  try {
    if (!statSync(cwd).isDirectory()) return `cannot start the server: its cwd ${where} is not a folder`
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    return code === 'ENOENT' ? `cannot start the server: its cwd ${where} does not exist` : `cannot start the server: its cwd ${where} cannot be used (${code})`
  }
  return undefined
}

/** The minimal environment plus the server's own variables. */
export function childEnvironment (extra: Record<string, string> = {}, parent: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string | undefined> = {}
  // The SDK lays its own defaults (SHELL, TERM, LOGNAME...) under ours; an undefined value masks
  // one, since Node leaves undefined variables out of a child's environment.
  for (const name of DEFAULT_INHERITED_ENV_VARS) env[name] = undefined
  for (const name of CHILD_ENV_ALLOWLIST) if (parent[name] !== undefined) env[name] = parent[name]
  Object.assign(env, extra)
  return env as Record<string, string>
}

/**
 * The ChildProcess behind a stdio transport. The SDK keeps it in a private field and forgets it
 * on close, so it is read while the transport still holds it. Signalling the handle (not a pid)
 * can never hit an unrelated process that reused the pid.
 */
export function childOf (transport: unknown): ChildProcess | undefined {
  if (!(transport instanceof StdioClientTransport)) return undefined
  const child = (transport as unknown as { _process?: ChildProcess })._process
  return typeof child?.kill === 'function' ? child : undefined
}

export function isRunning (child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null
}

export interface StderrLogOptions {
  logger: Logger
  /** Monotonic ms. */
  now: () => number
  linesPerWindow: number
  windowMs: number
}

/** One server's stderr: one debug line per line of output, at most N per window, the rest counted. */
export class StderrLog {
  /** The last non-empty line, shortened: the usual explanation of a crash. */
  lastLine: string | undefined
  readonly #options: StderrLogOptions
  #window = { start: -Infinity, count: 0, dropped: 0 }

  constructor (options: StderrLogOptions) {
    this.#options = options
  }

  /** Reads `stream` to its end (always drained: a full pipe would block the child). */
  follow (stream: Readable, pid: () => number | undefined): void {
    let pending = ''
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => {
      pending += chunk
      let newline = pending.indexOf('\n')
      while (newline !== -1) {
        this.#line(pending.slice(0, newline).replace(/\r$/, ''), pid())
        pending = pending.slice(newline + 1)
        newline = pending.indexOf('\n')
      }
      if (pending.length > MAX_LINE) {
        this.#line(pending, pid())
        pending = ''
      }
    })
    stream.on('end', () => {
      if (pending !== '') this.#line(pending, pid())
      // The child is gone: say what the cap swallowed rather than wait for a window that never comes.
      this.#reportDropped()
    })
    stream.on('error', () => {})
  }

  #line (line: string, pid: number | undefined): void {
    const text = line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line
    if (text.trim() === '') return
    this.lastLine = text.length > MAX_REMEMBERED ? `${text.slice(0, MAX_REMEMBERED)}…` : text
    const now = this.#options.now()
    if (now - this.#window.start >= this.#options.windowMs) {
      this.#reportDropped()
      this.#window = { start: now, count: 0, dropped: 0 }
    }
    if (++this.#window.count > this.#options.linesPerWindow) {
      this.#window.dropped++
      return
    }
    this.#options.logger.debug({ stderr: text, pid }, 'MCP server stderr')
  }

  #reportDropped (): void {
    if (this.#window.dropped > 0) this.#options.logger.debug({ dropped: this.#window.dropped }, 'MCP server stderr lines not logged (rate cap)')
    this.#window.dropped = 0
  }
}
