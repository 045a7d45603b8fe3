// The benchmark's servers as child processes: compiled to JavaScript first, each forked alone,
// asked over IPC for its port and its CPU time, stopped, and never left behind by a failed run.
import { execFileSync, fork, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LOG_LEVEL, PROFILE_DIR } from './settings.ts'

const PROJECT_DIR = fileURLToPath(new URL('..', import.meta.url))
const SERVER_SCRIPT = fileURLToPath(new URL('../dist/bench/bench/servers.js', import.meta.url))

export interface Server { url: string, child: ChildProcess }

// A failed run must not leave a server behind holding our stderr open.
const running = new Set<ChildProcess>()
process.on('exit', () => { for (const child of running) child.kill() })

/** Compiles the servers and the gateway they load into dist/bench. */
export function compileServers (): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.bench.json'], { cwd: PROJECT_DIR, stdio: 'inherit' })
}

export async function startServer (scenario: string, extra: string[] = []): Promise<Server> {
  const execArgv: string[] = []
  // One folder per scenario, so that each server's profile is found by its name.
  if (PROFILE_DIR !== undefined) execArgv.push('--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${join(PROFILE_DIR, scenario)}`)
  const child = fork(SERVER_SCRIPT, [scenario, ...extra], {
    execArgv,
    env: { ...process.env, LOG_LEVEL },
    // Not a TTY: the gateway logs JSON lines as in production, never through pino-pretty.
    stdio: ['ignore', 'pipe', 'inherit', 'ipc']
  })
  running.add(child)
  child.once('exit', () => running.delete(child))
  child.stdout?.pipe(process.stderr)
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port))
    child.once('exit', (code) => reject(new Error(`server ${scenario} exited with code ${code} before listening`)))
  })
  return { url: `http://127.0.0.1:${port}`, child }
}

/** The server's CPU time so far (user + system), in µs. */
export async function serverCpu (server: Server): Promise<number> {
  const reply = new Promise<number>((resolve) => {
    const onMessage = (message: unknown): void => {
      const cpu = (message as { cpu?: NodeJS.CpuUsage }).cpu
      if (cpu === undefined) return
      server.child.off('message', onMessage)
      resolve(cpu.user + cpu.system)
    }
    server.child.on('message', onMessage)
  })
  server.child.send('cpu')
  return reply
}

export async function stopServer (server: Server): Promise<void> {
  const exited = new Promise<void>((resolve) => server.child.once('exit', () => resolve()))
  server.child.send('stop')
  await exited
}
