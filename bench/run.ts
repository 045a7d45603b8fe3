// The benchmark (`npm run bench`): what users run, measured against a floor. In one run, on
// 127.0.0.1, the gateway's real built-in tools (read_file, write_file, search_files), an echo tool, a
// batch and GET /definitions, each against a bare Fastify route doing the same work (the floor,
// floor-server.ts); the gateway's RSS after start and after load; start-to-ready of the compiled entry
// and of `npm start`. The gateway runs as users run it: the compiled entry (dist/src/server.js, as
// `npm run build` makes it) in a process of its own, with its settings in the environment and a temp
// WORKSPACE_ROOT generated afresh (fixtures.ts). autocannon loads one server at a time from this
// process, in alternating rounds so that a change of load on the machine hits both sides.
// BENCH_SCENARIOS selects groups. Prints markdown tables (bench/README.md pastes them) and writes
// bench/results.json; exits non-zero when any scenario had an answer other than the expected one.
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import { join } from 'node:path'
import { makeFixtures, type Fixtures } from './fixtures.ts'
import { gatewayLogCounts } from './log-tally.ts'
import { keyOf, measureRound, newTotals, type Scenario, type Totals } from './measure.ts'
import { rssBytes } from './proc.ts'
import { markdownReport, RESULTS_FILE, writeResults, type Memory, type Report } from './report.ts'
import { compileServers } from './server-process.ts'
import { DURATION_S, GROUPS, ROUNDS, TRIALS, WARMUP_S } from './settings.ts'
import { measureStartups } from './startup.ts'
import { failuresOf, median, summariseAll } from './stats.ts'
import { hasLoad, startTrial } from './trial.ts'

interface Run { scenarios: Scenario[], totals: Map<string, Totals>, sizes: Record<string, number>, rss: Map<string, { start: number[], load: number[] }> }

async function runRounds (scenarios: readonly Scenario[], totals: Map<string, Totals>, trial: number): Promise<void> {
  const seconds = DURATION_S / (TRIALS * ROUNDS)
  for (let round = 0; round < ROUNDS; round++) {
    for (const scenario of scenarios) {
      const key = keyOf(scenario)
      let total = totals.get(key)
      if (total === undefined) totals.set(key, total = newTotals())
      const measured = Math.max(seconds, scenario.slow?.minRoundSeconds ?? 0)
      process.stderr.write(`bench: trial ${trial + 1}/${TRIALS}, round ${round + 1}/${ROUNDS}, ${key}: ${round === 0 ? `${WARMUP_S} s warm-up, ` : ''}${measured.toFixed(2)} s\n`)
      await measureRound(scenario, seconds, round === 0, total)
    }
  }
}

/** TRIALS times: every server started afresh, ROUNDS rounds over all the scenarios in turn, then each server's RSS. */
async function runTrials (scratch: string, fixtures: Fixtures): Promise<Run> {
  const run: Run = { scenarios: [], totals: new Map(), sizes: {}, rss: new Map() }
  for (let trial = 0; trial < TRIALS; trial++) {
    const started = await startTrial(scratch, fixtures, GROUPS)
    run.scenarios = started.scenarios
    run.sizes = started.sizes
    try {
      await runRounds(started.scenarios, run.totals, trial)
      for (const { target, rssAfterStart } of started.servers) {
        let rss = run.rss.get(target.label)
        if (rss === undefined) run.rss.set(target.label, rss = { start: [], load: [] })
        rss.start.push(rssAfterStart)
        rss.load.push(await rssBytes(target.pid))
      }
    } finally {
      await started.stop()
    }
  }
  return run
}

const mb = (bytes: number[]): number => Math.round(median(bytes) / 2 ** 20)

async function measure (scratch: string): Promise<Report> {
  const load = { atStart: os.loadavg(), atEnd: [] as number[] }
  process.stderr.write('bench: compiling the gateway (tsconfig.build.json → dist) and the floor (tsconfig.bench.json → dist/bench)\n')
  compileServers()
  process.stderr.write('bench: generating the workspace (a 1 MB file, a 2 000-file tree) and the tool modules\n')
  const fixtures = await makeFixtures(scratch)
  const startups = GROUPS.includes('startup') ? await measureStartups(fixtures, scratch) : []
  const run: Run = hasLoad(GROUPS) ? await runTrials(scratch, fixtures) : { scenarios: [], totals: new Map(), sizes: {}, rss: new Map() }
  const { results, ratios } = summariseAll(run.scenarios, run.totals)
  const memory: Memory[] = [...run.rss].map(([server, rss]) => ({ server, rssAfterStartMB: mb(rss.start), rssAfterLoadMB: mb(rss.load) }))
  load.atEnd = os.loadavg()
  return { results, ratios, memory, startups, sizes: run.sizes, load, failures: failuresOf(results), gatewayLog: Object.fromEntries(gatewayLogCounts) }
}

async function main (): Promise<void> {
  const scratch = await mkdtemp(join(os.tmpdir(), 'gw-bench-run-'))
  let report: Report
  try {
    report = await measure(scratch)
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
  process.stdout.write(markdownReport(report))
  await writeResults(report)
  process.stderr.write(`bench: results written to ${RESULTS_FILE}\n`)
  if (report.failures.length > 0) {
    process.stderr.write(`bench: FAILED: scenarios with error responses:\n  ${report.failures.join('\n  ')}\n`)
    process.exitCode = 1
  }
}

await main()
