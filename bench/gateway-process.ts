// The gateway as users run it: the compiled server entry (`node dist/src/server.js`, what
// `npm run build` makes and the container runs), or the `npm start` command, spawned afresh with its
// settings in the environment, timed from spawn until GET /readyz answers 200, stopped with SIGTERM
// (the graceful drain, which also lets --cpu-prof write its profile).
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
// The tests' helper: the benchmark runs on the same loopback, with the same race-free-enough port pick.
import { freePort } from '../test/helpers/free-port.ts'
import { tallyLogLines } from './log-tally.ts'
import { LOG_LEVEL, PROFILE_DIR } from './settings.ts'

export const PROJECT_DIR = fileURLToPath(new URL('..', import.meta.url))
export const GATEWAY_ENTRY = join(PROJECT_DIR, 'dist', 'src', 'server.js')
const READY_TIMEOUT_MS = 60_000
const READY_POLL_MS = 5

export interface GatewayOptions {
  /** Names the process in messages and its CPU profile folder. */
  label: string
  workspace: string
  extraToolsDir?: string
  /** Run the `start` script of package.json (as `npm start` would) instead of the compiled entry. */
  npmStart?: boolean
  cwd: string
  /** Settings beyond the run's own (REDIS_URL for the replicas' scenario). */
  env?: Record<string, string>
}

export interface Gateway { url: string, pid: number, child: ChildProcess, readyMs: number, label: string }

const running = new Set<ChildProcess>()
process.on('exit', () => { for (const child of running) killTree(child, 'SIGKILL') })

function killTree (child: ChildProcess, signal: NodeJS.Signals): void {
  // A shell-run start script is its own process group (detached): signal the whole group.
  try {
    if (child.spawnargs[0] === 'sh' && child.pid !== undefined) process.kill(-child.pid, signal)
    else child.kill(signal)
  } catch {
    // Already gone.
  }
}

/** The environment of a run: the user's, minus every setting that would change what is measured. */
function gatewayEnv (options: GatewayOptions, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of ['GATEWAY_CONFIG', 'TOOLS_DIR', 'EXTRA_TOOLS_DIRS', 'RATE_LIMIT_MAX', 'NODE_OPTIONS', 'ALLOWED_HOSTS']) delete env[name]
  Object.assign(env, { HOST: '127.0.0.1', PORT: String(port), WORKSPACE_ROOT: options.workspace, LOG_LEVEL })
  // As the container sets them; `npm start` keeps the user's environment (its script sets MALLOC_ARENA_MAX).
  if (options.npmStart !== true) Object.assign(env, { NODE_ENV: 'production', MALLOC_ARENA_MAX: '2' })
  if (options.extraToolsDir !== undefined) env.EXTRA_TOOLS_DIRS = options.extraToolsDir
  return Object.assign(env, options.env)
}

function spawnGateway (options: GatewayOptions, port: number): ChildProcess {
  const env = gatewayEnv(options, port)
  const stdio: ['ignore', 'pipe', number] = ['ignore', 'pipe', 2]
  if (options.npmStart === true) {
    const script = (JSON.parse(readFileSync(join(PROJECT_DIR, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start
    // As npm runs it: through sh, with the project's node_modules/.bin first on PATH.
    env.PATH = `${join(PROJECT_DIR, 'node_modules', '.bin')}:${env.PATH ?? ''}`
    return spawn('sh', ['-c', script], { cwd: PROJECT_DIR, env, stdio, detached: true })
  }
  const execArgv = PROFILE_DIR === undefined ? [] : ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${join(PROFILE_DIR, options.label)}`]
  return spawn(process.execPath, [...execArgv, GATEWAY_ENTRY], { cwd: options.cwd, env, stdio })
}

/** Polls GET /readyz until it answers 200; fails when the process exits or takes too long. */
async function waitReady (url: string, child: ChildProcess, label: string): Promise<void> {
  let exited: string | undefined
  child.once('exit', (code, signal) => { exited = `exited (code ${code}, signal ${signal})` })
  const deadline = performance.now() + READY_TIMEOUT_MS
  while (performance.now() < deadline) {
    if (exited !== undefined) throw new Error(`gateway ${label} ${exited} before it was ready`)
    try {
      const response = await fetch(`${url}/readyz`)
      await response.arrayBuffer()
      if (response.status === 200) return
    } catch {
      // Not listening yet.
    }
    await sleep(READY_POLL_MS)
  }
  throw new Error(`gateway ${label}: GET /readyz did not answer 200 within ${READY_TIMEOUT_MS} ms`)
}

export async function startGateway (options: GatewayOptions): Promise<Gateway> {
  const port = await freePort()
  const started = performance.now()
  const child = spawnGateway(options, port)
  if (child.stdout !== null) tallyLogLines(options.label, child.stdout)
  running.add(child)
  child.once('exit', () => running.delete(child))
  const url = `http://127.0.0.1:${port}`
  try {
    await waitReady(url, child, options.label)
  } catch (err) {
    await stopGateway({ child, label: options.label })
    throw err
  }
  const readyMs = performance.now() - started
  if (child.pid === undefined) throw new Error(`gateway ${options.label}: no process id`)
  // Under `npm start` the pid is the shell's; the server is its only child (sh execs it, or waits on it).
  return { url, pid: options.npmStart === true ? await serverPidUnder(child.pid) : child.pid, child, readyMs, label: options.label }
}

/** The node process under a shell: the shell itself when it exec'd node (as the start script does), else its one child. */
async function serverPidUnder (shellPid: number): Promise<number> {
  // Not /proc/<pid>/comm: Node names its main thread "MainThread", which is what comm then says.
  const program = (await readFile(`/proc/${shellPid}/cmdline`, 'utf8')).split('\0')[0]
  if (basename(program) === 'node') return shellPid
  const children = (await readFile(`/proc/${shellPid}/task/${shellPid}/children`, 'utf8')).trim().split(' ')
  return Number(children[0])
}

export async function stopGateway (gateway: Pick<Gateway, 'child' | 'label'>): Promise<void> {
  const { child } = gateway
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  killTree(child, 'SIGTERM')
  const timer = setTimeout(() => killTree(child, 'SIGKILL'), 15_000)
  await exited
  clearTimeout(timer)
}
