// npm run bench:code: the measured case for code mode. Two fixed multi-step tasks on a generated
// corpus, each done step by step with tool calls and in one execute_code script, against the real
// gateway (CODE_MODE=true, built-in tools): tokens sent and read in o200k_base, model turns, wall
// time and the tokens an agent loop processes; then the overhead of an empty script and of one
// inner call, with autocannon. Writes bench/code-mode/results.json and prints the tables.
// Settings: CODE_BENCH_RUNS (10 measured passes per way), CODE_BENCH_SECONDS (5 per scenario),
// CODE_BENCH_CONNECTIONS (4), CODE_BENCH_ROUNDS (5), CODE_BENCH_WARMUP (1 s).
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { writeCorpus } from './corpus.ts'
import { fetchDefinitions, measureTask, type TaskResult } from './measure-tasks.ts'
import { measureOverheads, overheadRatios, overheadScenarios, type LoadSettings } from './overhead.ts'
import { markdownReport } from './report.ts'
import { notesTask, servicesTask } from './tasks.ts'

const setting = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`)
  return value
}

const RUNS = setting('CODE_BENCH_RUNS', 10)
const LOAD: LoadSettings = {
  connections: setting('CODE_BENCH_CONNECTIONS', 4),
  seconds: setting('CODE_BENCH_SECONDS', 5),
  rounds: setting('CODE_BENCH_ROUNDS', 5),
  warmupSeconds: setting('CODE_BENCH_WARMUP', 1)
}

interface Servers { gateway: string, floor: string, child: ChildProcess }

/** The servers' process, with only the settings that define what is measured. */
async function startServers (workspace: string): Promise<Servers> {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of ['GATEWAY_CONFIG', 'TOOLS_DIR', 'EXTRA_TOOLS_DIRS', 'RATE_LIMIT_MAX', 'NODE_OPTIONS', 'ALLOWED_HOSTS']) delete env[name]
  Object.assign(env, {
    WORKSPACE_ROOT: workspace,
    CODE_MODE: 'true',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    MALLOC_ARENA_MAX: '2',
    // Above the load's connections: a refused script still answers 200, and would pass unseen.
    CODE_MAX_SCRIPTS_PER_CALLER: String(Math.max(16, LOAD.connections * 2))
  })
  const child = spawn(process.execPath, [join(import.meta.dirname, 'server.ts')], { env, stdio: ['ignore', 'pipe', 'inherit'] })
  const lines = createInterface({ input: child.stdout! })
  const exited = once(child, 'exit').then(([code]) => { throw new Error(`the bench server exited (${String(code)}) before it listened`) })
  const [line] = await Promise.race([once(lines, 'line') as Promise<string[]>, exited])
  // Its later exit, at the stop, is expected.
  exited.catch(() => {})
  lines.on('line', (more) => process.stdout.write(`server: ${more}\n`))
  const urls = JSON.parse(line) as { gateway: string, floor: string }
  return { ...urls, child }
}

async function stopServers (servers: Servers): Promise<void> {
  const exited = once(servers.child, 'exit')
  servers.child.kill('SIGTERM')
  await exited
}

const machine = (): Record<string, unknown> => ({
  cpu: cpus()[0]?.model,
  cores: cpus().length,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  platform: `${process.platform} ${process.arch}`
})

async function main (): Promise<void> {
  const started = new Date()
  const loadAtStart = loadavg()
  const workspace = await mkdtemp(join(tmpdir(), 'code-mode-bench-'))
  const corpus = await writeCorpus(workspace)
  const servers = await startServers(workspace)
  try {
    const definitions = await fetchDefinitions(servers.gateway)
    const tasks: TaskResult[] = [
      await measureTask(servers.gateway, notesTask, corpus, definitions, RUNS),
      await measureTask(servers.gateway, servicesTask, corpus, definitions, RUNS)
    ]
    const loads = await measureOverheads(overheadScenarios(servers.gateway, servers.floor), LOAD)
    const failed = loads.filter((l) => l.failures > 0)
    const results = {
      started: started.toISOString(),
      finished: new Date().toISOString(),
      machine: machine(),
      loadAverage: { start: loadAtStart, end: loadavg() },
      settings: { runs: RUNS, load: LOAD, encoding: 'o200k_base (gpt-tokenizer), as X-Definitions-Tokens' },
      corpus: corpus.size,
      definitions,
      tasks,
      overhead: { loads, ratios: overheadRatios(loads) }
    }
    await writeFile(join(import.meta.dirname, 'results.json'), JSON.stringify(results, null, 2) + '\n')
    console.log(markdownReport(results))
    if (failed.length > 0) throw new Error(`answers that were not 200 or failed: ${failed.map((l) => `${l.id} ${l.failures}`).join(', ')}`)
  } finally {
    await stopServers(servers)
    await rm(workspace, { recursive: true, force: true })
  }
}

await main()
