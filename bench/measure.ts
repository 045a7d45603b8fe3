// One measured round of one scenario: autocannon's load on a server, every latency kept, the
// server's CPU time over the measured period, and a failure when any answer is not the expected one.
import autocannon from 'autocannon'
import { serverCpu, type Server } from './server-process.ts'
import { CONNECTIONS, WARMUP_S } from './settings.ts'

export interface Scenario {
  key: string
  description: string
  server: Server
  options: autocannon.Options
  expectedStatus: number
}

/** What the rounds of one scenario add up to. */
export interface Totals { requestsPerSecond: number[], bytesPerSecond: number[], latencies: number[], cpuUs: number, requests: number }

/** The totals of a scenario, started empty on its first round. */
export function totalsOf (totals: Map<string, Totals>, key: string): Totals {
  let total = totals.get(key)
  if (total === undefined) {
    total = { requestsPerSecond: [], bytesPerSecond: [], latencies: [], cpuUs: 0, requests: 0 }
    totals.set(key, total)
  }
  return total
}

export async function measureRound (scenario: Scenario, seconds: number, warmup: boolean, totals: Totals): Promise<void> {
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
  // No answer at all is a failure too (a response whose framing autocannon cannot finish reads as none).
  if (answered === 0 || result.errors > 0 || result.timeouts > 0 || unexpected.length > 0) {
    throw new Error(`${scenario.key}: ${result.errors} errors, ${result.timeouts} timeouts, status counts ${JSON.stringify(result.statusCodeStats)} (expected all ${scenario.expectedStatus})`)
  }
  totals.requestsPerSecond.push(result.requests.mean)
  totals.bytesPerSecond.push(result.throughput.mean)
  totals.cpuUs += cpuUs
  totals.requests += answered
}
