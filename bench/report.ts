// The results of a benchmark run: a markdown table on stdout (the README pastes it) and the same
// figures, with the machine and the settings, in bench/results.json.
import { writeFile } from 'node:fs/promises'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { CONNECTIONS, DURATION_S, LOG_LEVEL, ROUNDS, TRIALS, WARMUP_S } from './settings.ts'
import type { Measured, Ratio, RatioKey } from './stats.ts'

export const RESULTS_FILE = fileURLToPath(new URL('./results.json', import.meta.url))
const TARGET = 0.85
const ORDER = ['a', 'b', 'c0', 'c', "c'"]

function machine (): string {
  const cpus = os.cpus()
  const memory = `${Math.round(os.totalmem() / 2 ** 30)} GiB`
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${memory} RAM, ${os.type()} ${os.release()}, Node ${process.version}`
}

export function markdownReport (results: Record<string, Measured>, ratios: Record<RatioKey, Ratio>): string {
  const verdict = (value: number): string => (value >= TARGET ? 'met' : 'not met')
  const lines = [
    `Machine: ${machine()}. Log level: ${LOG_LEVEL}. autocannon, ${CONNECTIONS} connections, ${DURATION_S} s measured per scenario, in ${TRIALS} trials (every server started afresh) of ${ROUNDS} alternating rounds, ${WARMUP_S} s warm-up per server and trial; servers compiled to JavaScript (as in the container), each alone in a child process, autocannon in the parent, all on 127.0.0.1.`,
    '',
    '| scenario | req/s (mean) | p50 latency (ms) | p99 latency (ms) | server CPU per request (µs) |',
    '|---|---:|---:|---:|---:|',
    ...ORDER.map((key) => {
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
  return `${lines.join('\n')}\n`
}

export async function writeResults (results: Record<string, Measured>, ratios: Record<RatioKey, Ratio>, definitionsBytes: number): Promise<void> {
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
    scenarios: ORDER.map((key) => results[key]),
    ratios,
    target: TARGET
  }, null, 2)}\n`)
}
