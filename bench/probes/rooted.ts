// The probes of issue 25 items 1-3 against the compiled gateway of any checkout: PROBE_ROOT (or the
// first argument) names the repository whose dist/src/server.js runs, so the same probe measures a
// git worktree of the code before a fix and this checkout after it. The gateway is started as
// bench/gateway-process.ts starts it (production settings, loopback, its own workspace), watched as
// bench/probes/harness.ts watches it (RSS from /proc, GET /healthz from a client that is not the
// attacker), except that every watching request opens a connection of its own: the attacks here
// are on connections, and a kept-alive socket would hide them. Loopback only, bounded in time.
import { spawn, type ChildProcess } from 'node:child_process'
import { request } from 'node:http'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from '../../test/helpers/free-port.ts'
import { gatewayLogCounts, tallyLogLines } from '../log-tally.ts'
import { rssBytes } from '../proc.ts'

export const PROBE_ROOT = resolve(process.env.PROBE_ROOT ?? process.argv[2] ?? '/work/main')
const MB = 1024 * 1024

export interface Rooted { url: string, port: number, pid: number, child: ChildProcess, workspace: string, adminPort?: number }

export interface Answer { status: number, headers: Record<string, string | string[] | undefined>, body: string, ms: number }

/** One request on a connection of its own (no agent, no keep-alive); an Error when it fails or times out. */
export async function oneShot (port: number, method: string, path: string, options: { headers?: Record<string, string>, body?: string, timeoutMs?: number } = {}): Promise<Answer | Error> {
  const began = performance.now()
  return await new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, headers: { connection: 'close', ...options.headers }, timeout: options.timeoutMs ?? 5000 }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - began }))
      res.on('error', (err) => resolve(err))
    })
    req.on('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs ?? 5000} ms`)))
    req.on('error', (err) => resolve(err))
    req.end(options.body)
  })
}

/** A gateway config file holding keys read from environment variables, and that environment. */
export function keysConfig (keys: Array<{ name: string, toolsets?: string[] }>): { yaml: string, env: Record<string, string>, secret: (name: string) => string } {
  const env: Record<string, string> = {}
  const lines = ['auth:', '  keys:']
  for (const key of keys) {
    const variable = `PROBE_KEY_${key.name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`
    env[variable] = `probe-${key.name}-${Math.random().toString(36).slice(2)}-secret`
    lines.push(`    - name: ${key.name}`, `      env: ${variable}`)
    if (key.toolsets !== undefined) lines.push(`      toolsets: [${key.toolsets.join(', ')}]`)
  }
  const secret = (name: string): string => env[`PROBE_KEY_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`]
  return { yaml: `${lines.join('\n')}\n`, env, secret }
}

function gatewayEnv (workspace: string, port: number, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of ['GATEWAY_CONFIG', 'TOOLS_DIR', 'EXTRA_TOOLS_DIRS', 'RATE_LIMIT_MAX', 'NODE_OPTIONS', 'ALLOWED_HOSTS', 'PROBE_ROOT']) delete env[name]
  Object.assign(env, { HOST: '127.0.0.1', PORT: String(port), WORKSPACE_ROOT: workspace, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', NODE_ENV: 'production', MALLOC_ARENA_MAX: '2' })
  return Object.assign(env, extra)
}

async function waitReady (port: number, child: ChildProcess): Promise<void> {
  const deadline = performance.now() + 60_000
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the gateway exited (${child.exitCode ?? child.signalCode}) before it was ready`)
    const answer = await oneShot(port, 'GET', '/readyz', { timeoutMs: 1000 })
    if (!(answer instanceof Error) && answer.status === 200) return
    await sleep(20)
  }
  throw new Error('GET /readyz did not answer 200 within 60 s')
}

/** Starts PROBE_ROOT's compiled gateway on a fresh workspace (with `files` in it) and a config file of `configYaml`. */
export async function startRooted (label: string, options: { env?: Record<string, string>, configYaml?: string, files?: Record<string, string>, adminPort?: boolean }): Promise<Rooted> {
  const workspace = await mkdtemp(join(tmpdir(), `probe-${label}-`))
  const home = await mkdtemp(join(tmpdir(), `probe-${label}-conf-`))
  for (const [name, text] of Object.entries(options.files ?? {})) await writeFile(join(workspace, name), text)
  const extra: Record<string, string> = { ...options.env }
  if (options.configYaml !== undefined) {
    await writeFile(join(home, 'gateway.yaml'), options.configYaml)
    extra.GATEWAY_CONFIG = join(home, 'gateway.yaml')
  }
  const adminPort = options.adminPort === true ? await freePort() : undefined
  if (adminPort !== undefined) extra.ADMIN_PORT = String(adminPort)
  const port = await freePort()
  const child = spawn(process.execPath, [join(PROBE_ROOT, 'dist', 'src', 'server.js')], { cwd: home, env: gatewayEnv(workspace, port, extra), stdio: ['ignore', 'pipe', 'inherit'] })
  if (child.stdout !== null) tallyLogLines(label, child.stdout)
  process.once('exit', () => child.kill('SIGKILL'))
  await waitReady(port, child)
  if (child.pid === undefined) throw new Error('no process id')
  return { url: `http://127.0.0.1:${port}`, port, pid: child.pid, child, workspace, adminPort }
}

export async function stopRooted (gateway: Rooted): Promise<void> {
  const { child } = gateway
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
    await exited
    clearTimeout(timer)
  }
  await rm(gateway.workspace, { recursive: true, force: true })
}

export interface Watched {
  rssBeforeMb: number
  rssPeakMb: number
  healthzTries: number
  healthzFailures: number
  healthzMaxMs: number
  /** The highest gateway_tool_calls_in_flight read from /metrics, when asked to read it. */
  maxInFlight?: number
}

function gaugeOf (metrics: string, name: string): number | undefined {
  const line = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metrics)
  return line === null ? undefined : Number(line[1])
}

/** Watches RSS and GET /healthz (each on a new connection, every 50 ms, 5 s deadline) while `attack` runs. */
export async function watch (gateway: Rooted, attack: () => Promise<void>, options: { metrics?: boolean } = {}): Promise<Watched> {
  await sleep(500)
  const rssBefore = await rssBytes(gateway.pid)
  const figures: Watched = { rssBeforeMb: Math.round(rssBefore / MB), rssPeakMb: 0, healthzTries: 0, healthzFailures: 0, healthzMaxMs: 0 }
  let rssPeak = rssBefore
  const state = { running: true }
  const loops = [
    (async () => {
      while (state.running) {
        rssPeak = Math.max(rssPeak, await rssBytes(gateway.pid).catch(() => 0))
        await sleep(20)
      }
    })(),
    (async () => {
      while (state.running) {
        const answer = await oneShot(gateway.port, 'GET', '/healthz')
        figures.healthzTries++
        if (answer instanceof Error || answer.status !== 200) figures.healthzFailures++
        figures.healthzMaxMs = Math.max(figures.healthzMaxMs, answer instanceof Error ? 5000 : answer.ms)
        await sleep(50)
      }
    })()
  ]
  if (options.metrics === true) {
    figures.maxInFlight = 0
    loops.push((async () => {
      while (state.running) {
        const answer = await oneShot(gateway.port, 'GET', '/metrics')
        const value = answer instanceof Error ? undefined : gaugeOf(answer.body, 'gateway_tool_calls_in_flight')
        if (value !== undefined) figures.maxInFlight = Math.max(figures.maxInFlight ?? 0, value)
        await sleep(50)
      }
    })())
  }
  await attack()
  await sleep(300)
  state.running = false
  await Promise.all(loops)
  figures.rssPeakMb = Math.round(rssPeak / MB)
  figures.healthzMaxMs = Math.round(figures.healthzMaxMs)
  return figures
}

/** The gateway's log lines of the run, counted (warnings and errors are what a probe may want to see). */
export function logCounts (): Record<string, number> {
  return Object.fromEntries([...gatewayLogCounts].filter(([line]) => !line.startsWith('info')))
}
