// The benchmark's servers, compiled to JavaScript first: the gateway with `npm run build`'s
// tsconfig.build.json into dist/ (the real entry, dist/src/server.js, as the container runs it) and
// the floor with tsconfig.bench.json into dist/bench; the floor forked alone, asked for its port over
// IPC, stopped, and never left behind by a failed run.
import { execFileSync, fork, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FloorSpec } from './floor-server.ts'
import { PROJECT_DIR } from './gateway-process.ts'
import { LOG_LEVEL, PROFILE_DIR } from './settings.ts'

const FLOOR_SCRIPT = fileURLToPath(new URL('../dist/bench/bench/floor-server.js', import.meta.url))

export interface Server { url: string, pid: number, child: ChildProcess, label: string }

// A failed run must not leave a server behind holding our stderr open.
const running = new Set<ChildProcess>()
process.on('exit', () => { for (const child of running) child.kill() })

/** Compiles the gateway (`npm run build`) and the floor server. */
export function compileServers (): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  for (const project of ['tsconfig.build.json', 'tsconfig.bench.json']) {
    execFileSync(process.execPath, [tsc, '-p', project], { cwd: PROJECT_DIR, stdio: 'inherit' })
  }
}

export async function startFloor (spec: FloorSpec): Promise<Server> {
  const label = 'floor'
  const execArgv = PROFILE_DIR === undefined ? [] : ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${join(PROFILE_DIR, label)}`]
  const child = fork(FLOOR_SCRIPT, [JSON.stringify(spec)], {
    execArgv,
    // The malloc setting of the gateway's container: both sides allocate alike.
    env: { ...process.env, LOG_LEVEL, MALLOC_ARENA_MAX: '2' },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc']
  })
  running.add(child)
  child.once('exit', () => running.delete(child))
  child.stdout?.pipe(process.stderr)
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port))
    child.once('exit', (code) => reject(new Error(`the floor server exited with code ${code} before listening`)))
  })
  if (child.pid === undefined) throw new Error('the floor server has no process id')
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, child, label }
}

export async function stopFloor (server: Server): Promise<void> {
  if (server.child.exitCode !== null) return
  const exited = new Promise<void>((resolve) => server.child.once('exit', () => resolve()))
  server.child.send('stop')
  await exited
}
