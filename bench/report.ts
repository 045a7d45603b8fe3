// The results of a benchmark run: markdown tables on stdout (bench/README.md pastes them) and the same
// figures, with the machine, its load and the settings, in bench/results.json. Each figure is flagged
// against the target of issue 14 (or of the issue that set a pair's own).
import { writeFile } from 'node:fs/promises'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { CONNECTIONS, DURATION_S, GROUPS, LOG_LEVEL, ROUNDS, STARTS, TRIALS, WARMUP_S } from './settings.ts'
import type { StartupFigures } from './startup.ts'
import type { Measured, PairRatio } from './stats.ts'

export const RESULTS_FILE = fileURLToPath(new URL('./results.json', import.meta.url))

export const TARGETS = {
  throughput: 0.85,
  /** Pairs with a throughput target of their own (issue 26: a 2026-07-28 tools/call against REST). */
  throughputOf: { 'mcp-modern-rest': 0.8 } as Record<string, number>,
  p99: 1.2,
  rssAfterLoadMB: { 'gateway-builtins': 120, 'gateway-1000-tools': 150 } as Record<string, number>,
  readyMs: { builtins: 500, '1000-tools': 1000 } as Record<string, number>,
  /** `npm start` ready within this factor of the compiled entry's. */
  npmStartFactor: 1.1,
  healthMaxMs: 50
}

export interface Memory { server: string, rssAfterStartMB: number, rssAfterLoadMB: number }

export interface Report {
  results: Measured[]
  ratios: PairRatio[]
  memory: Memory[]
  startups: StartupFigures[]
  sizes: Record<string, number>
  load: { atStart: number[], atEnd: number[] }
  failures: string[]
  /** The gateways' log lines at the run's LOG_LEVEL and above, by level and message. */
  gatewayLog: Record<string, number>
}

const flag = (met: boolean): string => (met ? 'met' : '**missed**')
const num = (value: number): string => Math.round(value).toLocaleString('en-US').replace(/,/g, ' ')
const loadText = (load: number[]): string => load.map((value) => value.toFixed(1)).join(' ')

function machine (): string {
  const cpus = os.cpus()
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`
}

function pairTable (report: Report): string[] {
  const lines = [
    `| scenario | floor req/s | gateway req/s | ratio (≥ ${TARGETS.throughput}) | floor p50 / p99 ms | gateway p50 / p99 ms | p99 ratio (≤ ${TARGETS.p99}) | CPU µs/request floor / gateway |`,
    '|---|---:|---:|---|---:|---:|---|---:|'
  ]
  for (const ratio of report.ratios) {
    const target = TARGETS.throughputOf[ratio.pair] ?? TARGETS.throughput
    const floor = report.results.find((r) => r.pair === ratio.pair && r.side === 'floor') as Measured
    const gateway = report.results.find((r) => r.pair === ratio.pair && r.side === 'gateway') as Measured
    lines.push(`| ${gateway.description.replace(/^gateway: /, '')} | ${num(floor.requestsPerSecond)} | ${num(gateway.requestsPerSecond)} | ${ratio.throughput.toFixed(2)} ${flag(ratio.throughput >= target)}${target === TARGETS.throughput ? '' : ` (≥ ${target})`} | ${floor.p50Ms} / ${floor.p99Ms} | ${gateway.p50Ms} / ${gateway.p99Ms} | ${ratio.p99.toFixed(2)} ${flag(ratio.p99 <= TARGETS.p99)} | ${floor.serverCpuUsPerRequest} / ${gateway.serverCpuUsPerRequest} |`)
  }
  return lines
}

/** GET /healthz under each read_file load: the gateway's against the target, the floor's as the machine's share. */
function healthLines (results: readonly Measured[]): string[] {
  const shown = (h: NonNullable<Measured['health']>): string => `p99 ${h.p99Ms} ms, max ${h.maxMs} ms (${h.polls} polls, ${h.failures} failed)`
  return results.filter((r) => r.side === 'gateway' && r.health !== undefined).flatMap((gateway) => {
    const h = gateway.health as NonNullable<Measured['health']>
    const floor = results.find((r) => r.pair === gateway.pair && r.side === 'floor')?.health
    return ['', `GET /healthz every 100 ms during the ${gateway.pair} load: gateway ${shown(h)}${floor === undefined ? '' : `; floor under its own load ${shown(floor)}`}; target gateway max < ${TARGETS.healthMaxMs} ms ${flag(h.failures === 0 && h.maxMs < TARGETS.healthMaxMs)}.`]
  })
}

function otherTables (report: Report): string[] {
  const lines: string[] = []
  if (report.memory.length > 0) {
    lines.push('', '| server (median of the trials) | RSS after start, MB | RSS after load, MB | target after load |', '|---|---:|---:|---|')
    for (const m of report.memory) {
      const target = TARGETS.rssAfterLoadMB[m.server]
      lines.push(`| ${m.server} | ${m.rssAfterStartMB} | ${m.rssAfterLoadMB} | ${target === undefined ? '(reference)' : `< ${target} MB ${flag(m.rssAfterLoadMB < target)}`} |`)
    }
  }
  if (report.startups.length > 0) {
    const compiled = report.startups.find((s) => s.kind === 'builtins')
    lines.push('', `| start-up (median of ${STARTS}) | spawn to GET /readyz 200, ms | each start, ms | RSS settled, MB | target |`, '|---|---:|---|---:|---|')
    for (const s of report.startups) {
      const limit = s.kind === 'npm-start' && compiled !== undefined ? compiled.medianReadyMs * TARGETS.npmStartFactor : TARGETS.readyMs[s.kind]
      const target = s.kind === 'npm-start' ? `within 10 % of compiled (< ${Math.round(limit)} ms)` : `< ${limit} ms`
      lines.push(`| ${s.kind}: ${s.command} | ${num(s.medianReadyMs)} | ${s.readyMs.join(' ')} | ${s.medianRssMB} | ${target} ${flag(s.medianReadyMs < limit)} |`)
    }
  }
  lines.push(...healthLines(report.results))
  lines.push('', report.failures.length === 0 ? 'Error responses: none in any scenario.' : `**Error responses**: ${report.failures.join('; ')}.`)
  const logged = Object.entries(report.gatewayLog)
  lines.push('', logged.length === 0 ? `Gateway log lines at ${LOG_LEVEL} and above: none.` : `Gateway log lines at ${LOG_LEVEL} and above, all gateways of the run: ${logged.map(([line, count]) => `${count} × "${line}"`).join('; ')}.`)
  return lines
}

export function markdownReport (report: Report): string {
  const lines = [
    `Machine: ${machine()}; load average ${loadText(report.load.atStart)} at the start, ${loadText(report.load.atEnd)} at the end. ${new Date().toISOString().slice(0, 16)} UTC. autocannon, ${CONNECTIONS} connections, ${DURATION_S} s measured per scenario and side in ${TRIALS} trials (every server started afresh) of ${ROUNDS} alternating rounds, ${WARMUP_S} s warm-up per server and trial; log level ${LOG_LEVEL}.`,
    '',
    ...(report.ratios.length > 0 ? pairTable(report) : []),
    ...otherTables(report)
  ]
  return `${lines.join('\n')}\n`
}

export async function writeResults (report: Report): Promise<void> {
  await writeFile(RESULTS_FILE, `${JSON.stringify({
    date: new Date().toISOString(),
    machine: {
      cpu: os.cpus()[0]?.model.trim(),
      cores: os.cpus().length,
      totalMemoryBytes: os.totalmem(),
      os: `${os.type()} ${os.release()}`,
      node: process.version,
      loadAverage: report.load
    },
    settings: { logLevel: LOG_LEVEL, connections: CONNECTIONS, warmupSeconds: WARMUP_S, durationSeconds: DURATION_S, trials: TRIALS, rounds: ROUNDS, starts: STARTS, groups: GROUPS },
    targets: TARGETS,
    ratios: report.ratios,
    scenarios: report.results,
    memory: report.memory,
    startups: report.startups,
    responseBytes: report.sizes,
    failures: report.failures,
    gatewayLog: report.gatewayLog
  }, null, 2)}\n`)
}
