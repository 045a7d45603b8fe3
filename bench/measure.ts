// One measured round of one scenario: autocannon's load on a server, every latency kept, the
// server's CPU time over the measured period, every answer that is not the expected one counted
// (the run fails at the end if any was), and, where asked, GET /healthz probed during the load.
import autocannon from 'autocannon'
import { setTimeout as sleep } from 'node:timers/promises'
import { cpuUs } from './proc.ts'
import { CONNECTIONS, HEALTH_POLL_MS, WARMUP_S } from './settings.ts'

export interface Target { url: string, pid: number, label: string }

export interface Scenario {
  /** The pair it belongs to (a gateway scenario and its floor share it). */
  pair: string
  side: 'floor' | 'gateway'
  description: string
  server: Target
  options: autocannon.Options
  expectedStatus: number
  /** Poll this server's GET /healthz during the load (the event loop must stay responsive). */
  pollHealth?: boolean
  /** For requests of a second or more: fewer connections and longer rounds, so that each round has answers. */
  slow?: { connections: number, minRoundSeconds: number }
}

export const keyOf = (scenario: Pick<Scenario, 'pair' | 'side'>): string => `${scenario.pair}/${scenario.side}`

/** What the rounds of one scenario add up to. */
export interface Totals {
  requestsPerSecond: number[]
  latencies: number[]
  cpuUs: number
  requests: number
  /** Answers with another status than expected, transport errors, timeouts: all must stay 0. */
  unexpected: Record<string, number>
  errors: number
  timeouts: number
  healthMs: number[]
  healthFailures: number
}

export function newTotals (): Totals {
  return { requestsPerSecond: [], latencies: [], cpuUs: 0, requests: 0, unexpected: {}, errors: 0, timeouts: 0, healthMs: [], healthFailures: 0 }
}

const HEALTH_TIMEOUT_MS = 2000

/** GET /healthz every HEALTH_POLL_MS until `done()`, each latency kept (a failure or timeout counted). */
async function pollHealth (url: string, totals: Totals, done: () => boolean): Promise<void> {
  while (!done()) {
    const started = performance.now()
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) })
      await response.arrayBuffer()
      if (response.status === 200) totals.healthMs.push(performance.now() - started)
      else totals.healthFailures += 1
    } catch {
      totals.healthFailures += 1
    }
    await sleep(Math.max(0, HEALTH_POLL_MS - (performance.now() - started)))
  }
}

export async function measureRound (scenario: Scenario, seconds: number, warmup: boolean, totals: Totals): Promise<void> {
  const connections = scenario.slow?.connections ?? CONNECTIONS
  const instance = autocannon({
    connections,
    duration: Math.max(seconds, scenario.slow?.minRoundSeconds ?? 0),
    ...(warmup ? { warmup: { duration: WARMUP_S, connections } } : {}),
    ...scenario.options
  })
  // autocannon's own histogram keeps whole milliseconds, and many answers take less than one:
  // keep every measured latency (hrtime, fractional ms) and take the percentiles from them.
  let answered = 0
  instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => {
    totals.latencies.push(ms)
    answered++
  })
  // 'start' is the measured run's (the warm-up reports on a tracker of its own).
  let cpuAtStart: Promise<number> | undefined
  let finished = false
  let health: Promise<void> | undefined
  instance.once('start', () => {
    cpuAtStart = cpuUs(scenario.server.pid)
    if (scenario.pollHealth === true) health = pollHealth(scenario.server.url, totals, () => finished)
  })
  const result = await instance
  finished = true
  const cpuAtEnd = await cpuUs(scenario.server.pid)
  await health
  totals.cpuUs += cpuAtEnd - await (cpuAtStart ?? Promise.reject(new Error('autocannon never started')))
  for (const [status, { count }] of Object.entries(result.statusCodeStats)) {
    if (status !== String(scenario.expectedStatus)) totals.unexpected[status] = (totals.unexpected[status] ?? 0) + count
  }
  totals.errors += result.errors
  totals.timeouts += result.timeouts
  // No answer at all is a failure too (a response whose framing autocannon cannot finish reads as none).
  if (answered === 0) totals.errors += 1
  totals.requestsPerSecond.push(result.requests.mean)
  totals.requests += answered
}
