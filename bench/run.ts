// The benchmark (`npm run bench`): in one run, on 127.0.0.1, the gateway's dispatch and definitions
// against bare Fastify doing the same work. Each server runs alone in a child process, so the
// baseline and the gateway share identical conditions; autocannon loads them from this process,
// one at a time, in alternating rounds so that a change of load on the machine hits both sides.
// The servers run compiled JavaScript, as the container runs the gateway (`npm run build`): this
// script compiles them first with tsconfig.bench.json into dist/bench.
// Prints a markdown table (the README pastes it) and writes bench/results.json.
import { execFileSync, fork, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

/** Measured seconds per scenario, split over the rounds. */
const DURATION_S = positiveNumber('BENCH_DURATION', 10)
const WARMUP_S = positiveNumber('BENCH_WARMUP', 2)
// Short alternating rounds pair each gateway measurement with a baseline taken seconds before it:
// on a shared machine the load drifts, and a ratio of two measurements far apart carries that drift.
const ROUNDS = Math.floor(positiveNumber('BENCH_ROUNDS', 3))
// Each trial starts every server afresh: one process can settle faster or slower than the next
// (JIT and GC decisions, where the scheduler puts it), by ±10 % for the same code on this machine.
const TRIALS = Math.floor(positiveNumber('BENCH_TRIALS', 3))
const CONNECTIONS = Math.floor(positiveNumber('BENCH_CONNECTIONS', 10))
const LOG_LEVEL = process.env.LOG_LEVEL ?? 'warn'
/** A folder for V8 CPU profiles of the server children (`--cpu-prof`); unset = no profiling. */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR
const TARGET = 0.85
const DEFINITION_TOOLS = 500
const PROJECT_DIR = fileURLToPath(new URL('..', import.meta.url))
const SERVER_SCRIPT = fileURLToPath(new URL('../dist/bench/bench/servers.js', import.meta.url))
const RESULTS_FILE = fileURLToPath(new URL('./results.json', import.meta.url))
const ECHO_BODY = JSON.stringify({ text: 'hello from the benchmark' })

function positiveNumber (name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number (got ${JSON.stringify(raw)})`)
  return value
}

interface Server { url: string, child: ChildProcess }

// A failed run must not leave a server behind holding our stderr open.
const running = new Set<ChildProcess>()
process.on('exit', () => { for (const child of running) child.kill() })

/** Compiles the servers and the gateway they load into dist/bench. */
function compileServers (): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.bench.json'], { cwd: PROJECT_DIR, stdio: 'inherit' })
}

async function startServer (scenario: string, extra: string[] = []): Promise<Server> {
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
async function serverCpu (server: Server): Promise<number> {
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

async function stopServer (server: Server): Promise<void> {
  const exited = new Promise<void>((resolve) => server.child.once('exit', () => resolve()))
  server.child.send('stop')
  await exited
}

interface Scenario {
  key: string
  description: string
  server: Server
  options: autocannon.Options
  expectedStatus: number
}

/** What the rounds of one scenario add up to. */
interface Totals { requestsPerSecond: number[], bytesPerSecond: number[], latencies: number[], cpuUs: number, requests: number }

interface Measured {
  scenario: string
  description: string
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  bytesPerSecond: number
  totalRequests: number
  /** Server CPU time (user + system) per answered request over the measured periods. */
  serverCpuUsPerRequest: number
}

async function measureRound (scenario: Scenario, seconds: number, warmup: boolean, totals: Totals): Promise<void> {
  const instance = autocannon({
    connections: CONNECTIONS,
    duration: seconds,
    ...(warmup ? { warmup: { duration: WARMUP_S, connections: CONNECTIONS } } : {}),
    ...scenario.options
  })
  // autocannon's own histogram keeps whole milliseconds, and these answers take less than one:
  // keep every measured latency (hrtime, fractional ms) and take the percentiles from them.
  let answered = 0
  instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => {
    totals.latencies.push(ms)
    answered++
  })
  // 'start' is the measured run's (the warm-up reports on a tracker of its own).
  let cpuAtStart: Promise<number> | undefined
  instance.once('start', () => { cpuAtStart = serverCpu(scenario.server) })
  const result = await instance
  const cpuUs = await serverCpu(scenario.server) - await (cpuAtStart ?? Promise.reject(new Error('autocannon never started')))
  const unexpected = Object.keys(result.statusCodeStats).filter((status) => status !== String(scenario.expectedStatus))
  if (result.errors > 0 || result.timeouts > 0 || unexpected.length > 0) {
    throw new Error(`${scenario.key}: ${result.errors} errors, ${result.timeouts} timeouts, status counts ${JSON.stringify(result.statusCodeStats)} (expected all ${scenario.expectedStatus})`)
  }
  totals.requestsPerSecond.push(result.requests.mean)
  totals.bytesPerSecond.push(result.throughput.mean)
  totals.cpuUs += cpuUs
  totals.requests += answered
}

function mean (values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length
}

/** The nearest-rank percentile of sorted values, in ms rounded to 0.01. */
function percentile (sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN
  const value = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
  return Math.round(value * 100) / 100
}

function summarise (scenario: Scenario, totals: Totals): Measured {
  totals.latencies.sort((x, y) => x - y)
  return {
    scenario: scenario.key,
    description: scenario.description,
    requestsPerSecond: Math.round(mean(totals.requestsPerSecond)),
    p50Ms: percentile(totals.latencies, 0.5),
    p99Ms: percentile(totals.latencies, 0.99),
    bytesPerSecond: Math.round(mean(totals.bytesPerSecond)),
    totalRequests: totals.requests,
    serverCpuUsPerRequest: Math.round(totals.cpuUs / totals.requests * 10) / 10
  }
}

/** One request before the load, to fail loudly when a server does not answer what we think. */
async function probe (url: string, init: RequestInit, expectedStatus: number): Promise<Response> {
  const response = await fetch(url, init)
  if (response.status !== expectedStatus) throw new Error(`${url}: expected ${expectedStatus}, got ${response.status}: ${await response.text()}`)
  return response
}

function machine (): string {
  const cpus = os.cpus()
  const memory = `${Math.round(os.totalmem() / 2 ** 30)} GiB`
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${memory} RAM, ${os.type()} ${os.release()}, Node ${process.version}`
}

function median (values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/** Paired ratios: round i of the gateway over round i of its baseline (same trial), then their median. */
function pairedRatio (numerator: Totals, denominator: Totals): { median: number, rounds: number[] } {
  const rounds = numerator.requestsPerSecond.map((value, i) => Math.round(value / denominator.requestsPerSecond[i] * 100) / 100)
  return { median: Math.round(median(rounds) * 100) / 100, rounds }
}

function ratio (numerator: Measured, denominator: Measured, paired: { median: number, rounds: number[] }) {
  return {
    /** The target's figure: the median of the per-round paired ratios of req/s. */
    requestsPerSecond: paired.median,
    perRound: paired.rounds,
    ofMeans: Math.round(numerator.requestsPerSecond / denominator.requestsPerSecond * 100) / 100,
    // The baseline's CPU per request over the gateway's: the same ratio, free of the load generator.
    serverCpu: Math.round(denominator.serverCpuUsPerRequest / numerator.serverCpuUsPerRequest * 100) / 100
  }
}

interface Trial { scenarios: Scenario[], servers: Server[], definitionsBytes: number }

/** Starts the four servers afresh, checks each answers what we think, and builds the scenarios. */
async function startTrial (scratch: string): Promise<Trial> {
  const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: ECHO_BODY }
  const servers: Server[] = []
  try {
    const bare = await startServer('bare')
    servers.push(bare)
    const dispatch = await startServer('gateway-dispatch')
    servers.push(dispatch)
    const definitions = await startServer('gateway-definitions')
    servers.push(definitions)

    await probe(`${bare.url}/echo`, post, 200)
    const envelope = await (await probe(`${dispatch.url}/dispatch/echo`, post, 200)).json() as { ok: boolean }
    if (envelope.ok !== true) throw new Error(`echo did not succeed: ${JSON.stringify(envelope)}`)
    const fresh = await probe(`${definitions.url}/definitions`, {}, 200)
    const etag = fresh.headers.get('etag') ?? ''
    const contentType = fresh.headers.get('content-type') ?? ''
    const bytes = await fresh.text()
    const definitionsBytes = Buffer.byteLength(bytes)
    if ((JSON.parse(bytes) as unknown[]).length !== DEFINITION_TOOLS || etag === '') {
      throw new Error(`GET /definitions did not answer ${DEFINITION_TOOLS} tools with an ETag`)
    }
    await probe(`${definitions.url}/definitions`, { headers: { 'if-none-match': etag } }, 304)

    // The floor for (c): a static route serving exactly those bytes, with the same content type.
    const file = join(scratch, 'definitions.json')
    await writeFile(file, bytes)
    const staticServer = await startServer('static', [file])
    servers.push(staticServer)
    const same = await probe(`${staticServer.url}/definitions`, {}, 200)
    if (await same.text() !== bytes || same.headers.get('content-type') !== contentType) throw new Error('the static route does not serve the same bytes')

    const scenarios: Scenario[] = [
      { key: 'a', description: 'bare Fastify: POST /echo, same body schema, envelope-sized response', server: bare, options: { url: `${bare.url}/echo`, ...post }, expectedStatus: 200 },
      { key: 'b', description: 'gateway: POST /dispatch/echo, whole pipeline', server: dispatch, options: { url: `${dispatch.url}/dispatch/echo`, ...post }, expectedStatus: 200 },
      { key: 'c0', description: `bare Fastify: static route, the same ${definitionsBytes} bytes`, server: staticServer, options: { url: `${staticServer.url}/definitions` }, expectedStatus: 200 },
      { key: 'c', description: `gateway: GET /definitions, ${DEFINITION_TOOLS} tools`, server: definitions, options: { url: `${definitions.url}/definitions` }, expectedStatus: 200 },
      { key: "c'", description: 'gateway: GET /definitions with If-None-Match (304)', server: definitions, options: { url: `${definitions.url}/definitions`, headers: { 'if-none-match': etag } }, expectedStatus: 304 }
    ]
    return { scenarios, servers, definitionsBytes }
  } catch (err) {
    for (const server of servers) await stopServer(server)
    throw err
  }
}

async function main (): Promise<void> {
  const scratch = await mkdtemp(join(os.tmpdir(), 'gw-bench-run-'))
  const results: Record<string, Measured> = {}
  let definitionsBytes = 0
  let paired: Record<'b/a' | 'c/c0' | "c'/c0", { median: number, rounds: number[] }> | undefined
  try {
    process.stderr.write('bench: compiling the servers (tsconfig.bench.json → dist/bench)\n')
    compileServers()
    const totals = new Map<string, Totals>()
    let scenarios: Scenario[] = []
    const seconds = DURATION_S / (TRIALS * ROUNDS)
    for (let trial = 0; trial < TRIALS; trial++) {
      const started = await startTrial(scratch)
      scenarios = started.scenarios
      definitionsBytes = started.definitionsBytes
      try {
        for (let round = 0; round < ROUNDS; round++) {
          for (const scenario of scenarios) {
            let total = totals.get(scenario.key)
            if (total === undefined) {
              total = { requestsPerSecond: [], bytesPerSecond: [], latencies: [], cpuUs: 0, requests: 0 }
              totals.set(scenario.key, total)
            }
            process.stderr.write(`bench: trial ${trial + 1}/${TRIALS}, round ${round + 1}/${ROUNDS}, ${scenario.key} (${scenario.description}): ${round === 0 ? `${WARMUP_S} s warm-up, ` : ''}${seconds} s\n`)
            await measureRound(scenario, seconds, round === 0, total)
          }
        }
      } finally {
        for (const server of started.servers) await stopServer(server)
      }
    }
    for (const scenario of scenarios) results[scenario.key] = summarise(scenario, totals.get(scenario.key) as Totals)
    const of = (key: string): Totals => totals.get(key) as Totals
    paired = { 'b/a': pairedRatio(of('b'), of('a')), 'c/c0': pairedRatio(of('c'), of('c0')), "c'/c0": pairedRatio(of("c'"), of('c0')) }
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }

  if (paired === undefined) throw new Error('no measurement')
  const ratios = { 'b/a': ratio(results.b, results.a, paired['b/a']), 'c/c0': ratio(results.c, results.c0, paired['c/c0']), "c'/c0": ratio(results["c'"], results.c0, paired["c'/c0"]) }
  const verdict = (value: number): string => (value >= TARGET ? 'met' : 'not met')
  const order = ['a', 'b', 'c0', 'c', "c'"]
  const lines = [
    `Machine: ${machine()}. Log level: ${LOG_LEVEL}. autocannon, ${CONNECTIONS} connections, ${DURATION_S} s measured per scenario, in ${TRIALS} trials (every server started afresh) of ${ROUNDS} alternating rounds, ${WARMUP_S} s warm-up per server and trial; servers compiled to JavaScript (as in the container), each alone in a child process, autocannon in the parent, all on 127.0.0.1.`,
    '',
    '| scenario | req/s (mean) | p50 latency (ms) | p99 latency (ms) | server CPU per request (µs) |',
    '|---|---:|---:|---:|---:|',
    ...order.map((key) => {
      const r = results[key]
      return `| ${r.scenario}: ${r.description} | ${r.requestsPerSecond} | ${r.p50Ms} | ${r.p99Ms} | ${r.serverCpuUsPerRequest} |`
    }),
    '',
    `| ratio | req/s, median of paired rounds | per round | req/s, of the means | server CPU (baseline / gateway) | target ≥ ${TARGET} (median) |`,
    '|---|---:|---|---:|---:|---|',
    ...([['b/a', 'b/a, dispatch vs bare Fastify'], ['c/c0', 'c/c0, definitions vs static bytes'], ["c'/c0", "c'/c0, 304 revalidation vs static bytes"]] as const).map(([key, label]) => {
      const r = ratios[key]
      return `| ${label} | ${r.requestsPerSecond.toFixed(2)} | ${r.perRound.map((v) => v.toFixed(2)).join(' ')} | ${r.ofMeans.toFixed(2)} | ${r.serverCpu.toFixed(2)} | ${key === "c'/c0" ? '(reported)' : verdict(r.requestsPerSecond)} |`
    })
  ]
  process.stdout.write(`${lines.join('\n')}\n`)

  await writeFile(RESULTS_FILE, `${JSON.stringify({
    date: new Date().toISOString(),
    machine: {
      cpu: os.cpus()[0]?.model.trim(),
      cores: os.cpus().length,
      totalMemoryBytes: os.totalmem(),
      os: `${os.type()} ${os.release()}`,
      node: process.version
    },
    settings: { logLevel: LOG_LEVEL, connections: CONNECTIONS, warmupSeconds: WARMUP_S, durationSeconds: DURATION_S, trials: TRIALS, rounds: ROUNDS, definitionsBytes },
    scenarios: order.map((key) => results[key]),
    ratios,
    target: TARGET
  }, null, 2)}\n`)
  process.stderr.write(`bench: results written to ${RESULTS_FILE}\n`)
}

await main()
