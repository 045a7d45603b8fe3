// The results of a benchmark run: a markdown table on stdout (the README pastes it) and the same
// figures, with the machine and the settings, in bench/results.json.
import { writeFile } from 'node:fs/promises'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { CONNECTIONS, DURATION_S, GROUPS, LOG_LEVEL, ROUNDS, TRIALS, WARMUP_S } from './settings.ts'
import { RATIOS, type Measured, type Ratio, type RatioKey } from './stats.ts'
import type { Sizes } from './trial-servers.ts'

export const RESULTS_FILE = fileURLToPath(new URL('./results.json', import.meta.url))
const TARGET = 0.85
const ORDER = ['a', 'b', 'c0', 'c', "c'", 'd0', 'd', "b'", 'e0', 'e']

function machine (): string {
  const cpus = os.cpus()
  const memory = `${Math.round(os.totalmem() / 2 ** 30)} GiB`
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${memory} RAM, ${os.type()} ${os.release()}, Node ${process.version}`
}

type Ratios = Partial<Record<RatioKey, Ratio>>

export function markdownReport (results: Record<string, Measured>, ratios: Ratios): string {
  const verdict = (value: number): string => (value >= TARGET ? 'met' : 'not met')
  const lines = [
    `Machine: ${machine()}. Log level: ${LOG_LEVEL}. autocannon, ${CONNECTIONS} connections, ${DURATION_S} s measured per scenario, in ${TRIALS} trials (every server started afresh) of ${ROUNDS} alternating rounds, ${WARMUP_S} s warm-up per server and trial; servers compiled to JavaScript (as in the container), each alone in a child process, autocannon in the parent, all on 127.0.0.1.`,
    '',
    '| scenario | req/s (mean) | p50 latency (ms) | p99 latency (ms) | server CPU per request (µs) |',
    '|---|---:|---:|---:|---:|',
    ...ORDER.filter((key) => key in results).map((key) => {
      const r = results[key]
      return `| ${r.scenario}: ${r.description} | ${r.requestsPerSecond} | ${r.p50Ms} | ${r.p99Ms} | ${r.serverCpuUsPerRequest} |`
    }),
    '',
    `| ratio | req/s, median of paired rounds | per round | req/s, of the means | server CPU (baseline / gateway) | target ≥ ${TARGET} (median) |`,
    '|---|---:|---|---:|---:|---|',
    ...RATIOS.flatMap(({ key, label, target }) => {
      const r = ratios[key]
      if (r === undefined) return []
      return [`| ${label} | ${r.requestsPerSecond.toFixed(2)} | ${r.perRound.map((v) => v.toFixed(2)).join(' ')} | ${r.ofMeans.toFixed(2)} | ${r.serverCpu.toFixed(2)} | ${target ? verdict(r.requestsPerSecond) : '(reported)'} |`]
    })
  ]
  return `${lines.join('\n')}\n`
}

export async function writeResults (results: Record<string, Measured>, ratios: Ratios, sizes: Sizes): Promise<void> {
  await writeFile(RESULTS_FILE, `${JSON.stringify({
    date: new Date().toISOString(),
    machine: {
      cpu: os.cpus()[0]?.model.trim(),
      cores: os.cpus().length,
      totalMemoryBytes: os.totalmem(),
      os: `${os.type()} ${os.release()}`,
      node: process.version
    },
    settings: { logLevel: LOG_LEVEL, connections: CONNECTIONS, warmupSeconds: WARMUP_S, durationSeconds: DURATION_S, trials: TRIALS, rounds: ROUNDS, groups: GROUPS, ...sizes },
    scenarios: ORDER.filter((key) => key in results).map((key) => results[key]),
    ratios,
    target: TARGET
  }, null, 2)}\n`)
}
