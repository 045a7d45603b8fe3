// The benchmark (`npm run bench`): in one run, on 127.0.0.1, the gateway's dispatch, definitions and
// MCP endpoint against bare Fastify doing the same work (BENCH_SCENARIOS selects groups of them). Each server runs alone in a child process, so the
// baseline and the gateway share identical conditions; autocannon loads them from this process,
// one at a time, in alternating rounds so that a change of load on the machine hits both sides.
// The servers run compiled JavaScript, as the container runs the gateway (`npm run build`): this
// script compiles them first with tsconfig.bench.json into dist/bench.
// Prints a markdown table (the README pastes it) and writes bench/results.json.
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import { join } from 'node:path'
import { measureRound, totalsOf, type Scenario, type Totals } from './measure.ts'
import { markdownReport, RESULTS_FILE, writeResults } from './report.ts'
import { compileServers, stopServer } from './server-process.ts'
import { DURATION_S, GROUPS, ROUNDS, TRIALS, WARMUP_S } from './settings.ts'
import { ratiosOf, summariseAll } from './stats.ts'
import { startTrial } from './trial.ts'
import type { Sizes } from './trial-servers.ts'

interface Run { scenarios: Scenario[], totals: Map<string, Totals>, sizes: Sizes }

/** TRIALS times: every server started afresh, then ROUNDS rounds over all the scenarios in turn. */
async function runTrials (scratch: string): Promise<Run> {
  const totals = new Map<string, Totals>()
  let scenarios: Scenario[] = []
  let sizes: Sizes = {}
  const seconds = DURATION_S / (TRIALS * ROUNDS)
  for (let trial = 0; trial < TRIALS; trial++) {
    const started = await startTrial(scratch, GROUPS)
    scenarios = started.scenarios
    sizes = started.sizes
    try {
      for (let round = 0; round < ROUNDS; round++) {
        for (const scenario of scenarios) {
          const total = totalsOf(totals, scenario.key)
          process.stderr.write(`bench: trial ${trial + 1}/${TRIALS}, round ${round + 1}/${ROUNDS}, ${scenario.key} (${scenario.description}): ${round === 0 ? `${WARMUP_S} s warm-up, ` : ''}${seconds} s\n`)
          await measureRound(scenario, seconds, round === 0, total)
        }
      }
    } finally {
      for (const server of started.servers) await stopServer(server)
    }
  }
  return { scenarios, totals, sizes }
}

async function main (): Promise<void> {
  const scratch = await mkdtemp(join(os.tmpdir(), 'gw-bench-run-'))
  let summary: ReturnType<typeof summariseAll> | undefined
  let sizes: Sizes = {}
  try {
    process.stderr.write('bench: compiling the servers (tsconfig.bench.json → dist/bench)\n')
    compileServers()
    const run = await runTrials(scratch)
    sizes = run.sizes
    summary = summariseAll(run.scenarios, run.totals)
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }

  if (summary === undefined) throw new Error('no measurement')
  const { results, paired } = summary
  const ratios = ratiosOf(results, paired)
  process.stdout.write(markdownReport(results, ratios))
  await writeResults(results, ratios, sizes)
  process.stderr.write(`bench: results written to ${RESULTS_FILE}\n`)
}

await main()
