// The real entry point (src/server.ts) as a child process, for the tests that need the gateway as it
// runs in production: its exit code, its log on stdout, several replicas side by side. The child
// gets exactly the environment it is given (nothing, no secret, leaks in from the test process) and
// never outlives the test that started it.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { withTimeout } from '../../src/shared/timers.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SERVER = join(ROOT, 'src', 'server.ts')
/** Generous: the child strips the types of every module it loads, on a possibly busy machine. */
export const START_TIMEOUT_MS = 30_000
export const EXIT_TIMEOUT_MS = 15_000

interface TestContext { after: (fn: () => Promise<void> | void) => void }

export interface Exit { code: number | null, signal: NodeJS.Signals | null }

export interface ServerProcess {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  exited: Promise<Exit>
}

/** Rejects when `promise` has not settled within `ms`, saying what was awaited and what `output` shows. */
export function within<T> (promise: Promise<T>, ms: number, what: string, output: () => string): Promise<T> {
  return withTimeout(promise, ms, () => { throw new Error(`${what}: nothing after ${ms} ms; output so far:\n${output()}`) })
}

/**
 * Starts `node src/server.ts` (or another `entry`, the compiled one) from the repository root with
 * exactly `env`; killed after the test.
 */
export function startServer (t: TestContext, env: Record<string, string>, entry = SERVER): ServerProcess {
  // A state folder of its own unless the test names one: pins left by another test (or run) would hold its tools.
  const state = env.STATE_DIR === undefined ? { STATE_DIR: join(tmpdir(), `gw-state-${process.pid}-${randomUUID()}`) } : {}
  const child = spawn(process.execPath, [entry], { cwd: ROOT, env: { ...state, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  // Whatever a test does, no child outlives it.
  t.after(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGKILL')
    await exited
  })
  return { child, stdout: () => stdout, stderr: () => stderr, exited }
}

/** The port from pino's "Server listening at http://host:port" line; rejects if the server exits first. */
export async function listeningPort (server: ServerProcess): Promise<number> {
  const found = new Promise<number>((resolve, reject) => {
    const look = (): void => {
      // Only whole lines: a chunk may end in the middle of one.
      for (const line of server.stdout().split('\n').slice(0, -1)) {
        if (!line.startsWith('{')) continue
        const msg = (JSON.parse(line) as { msg?: string }).msg ?? ''
        const match = /^Server listening at http:\/\/[^\s]+:(\d+)$/.exec(msg)
        if (match) {
          server.child.stdout!.off('data', look)
          resolve(Number(match[1]))
          return
        }
      }
    }
    server.child.stdout!.on('data', look)
    server.exited.then((exit) => reject(new Error(`the server exited (${JSON.stringify(exit)}) before listening:\n${server.stdout()}${server.stderr()}`)))
    look()
  })
  return within(found, START_TIMEOUT_MS, 'waiting for "Server listening at"', () => server.stdout() + server.stderr())
}
