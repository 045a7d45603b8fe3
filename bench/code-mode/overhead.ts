// What a script costs in itself: autocannon at a modest concurrency against the gateway and the floor
// (bench/code-mode/server.ts), each scenario loaded alone after a warm-up of its own, the rounds
// alternating over the scenarios so that a change of the machine's load touches them all alike.
// Every latency is kept (autocannon's histogram has whole milliseconds) for p50 and p99.
import autocannon from 'autocannon'
import { percentile } from '../stats.ts'

export interface LoadSettings { connections: number, seconds: number, warmupSeconds: number, rounds: number }

export interface OverheadScenario { id: string, description: string, url: string, body: unknown }

export interface Load {
  id: string
  description: string
  requests: number
  requestsPerSecond: number
  p50: number
  p99: number
  failures: number
}

interface Totals { latencies: number[], requests: number, seconds: number, failures: number }

export function overheadScenarios (gateway: string, floor: string): OverheadScenario[] {
  const inner = "return await tools.read_file({ path: 'small.txt' })"
  return [
    { id: 'floor-empty', description: 'floor: the sandbox runs `return 1` (a bare Fastify route, ScriptRunner)', url: `${floor}/script`, body: { code: 'return 1' } },
    { id: 'gateway-empty', description: 'gateway: POST /dispatch/execute_code `return 1`', url: `${gateway}/dispatch/execute_code`, body: { code: 'return 1' } },
    { id: 'gateway-read', description: 'gateway: POST /dispatch/read_file of small.txt (3 lines), no script', url: `${gateway}/dispatch/read_file`, body: { path: 'small.txt' } },
    { id: 'floor-inner', description: 'floor: a script of one inner read_file of small.txt, read by the route itself', url: `${floor}/script`, body: { code: inner, tools: true } },
    { id: 'gateway-inner', description: 'gateway: execute_code of one inner read_file of small.txt', url: `${gateway}/dispatch/execute_code`, body: { code: inner } }
  ]
}

async function load (scenario: OverheadScenario, connections: number, seconds: number, totals?: Totals): Promise<void> {
  const instance = autocannon({
    url: scenario.url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(scenario.body),
    connections,
    duration: seconds
  })
  if (totals !== undefined) {
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status === 200) totals.latencies.push(ms)
      else totals.failures += 1
    })
  }
  const result = await instance
  if (totals === undefined) return
  totals.requests += result['2xx']
  totals.seconds += result.duration
  totals.failures += result.errors + result.timeouts
}

/** One probe before the load: the answer must be ok (a refused script would still be a 200). */
async function probe (scenario: OverheadScenario): Promise<void> {
  const response = await fetch(scenario.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(scenario.body) })
  const answer = await response.json() as { ok?: boolean }
  if (response.status !== 200 || answer.ok !== true) throw new Error(`${scenario.id} answered ${response.status}: ${JSON.stringify(answer)}`)
}

export async function measureOverheads (scenarios: readonly OverheadScenario[], settings: LoadSettings): Promise<Load[]> {
  const totals = new Map(scenarios.map((s) => [s.id, { latencies: [], requests: 0, seconds: 0, failures: 0 } as Totals]))
  for (const scenario of scenarios) {
    await probe(scenario)
    await load(scenario, settings.connections, settings.warmupSeconds)
  }
  for (let round = 0; round < settings.rounds; round++) {
    for (const scenario of scenarios) await load(scenario, settings.connections, settings.seconds / settings.rounds, totals.get(scenario.id))
  }
  for (const scenario of scenarios) await probe(scenario)
  return scenarios.map((scenario) => {
    const t = totals.get(scenario.id) as Totals
    const sorted = t.latencies.sort((a, b) => a - b)
    return {
      id: scenario.id,
      description: scenario.description,
      requests: t.requests,
      requestsPerSecond: Math.round(t.requests / t.seconds),
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      failures: t.failures
    }
  })
}

export interface Ratio { id: string, of: string, against: string, throughput: number, p50: number, p99: number }

const round2 = (value: number): number => Math.round(value * 100) / 100

/** Each comparison: the first's requests/s over the second's, and its latencies over the second's. */
export function overheadRatios (loads: readonly Load[]): Ratio[] {
  const byId = new Map(loads.map((l) => [l.id, l]))
  const pairs: Array<[string, string, string]> = [
    ['empty script: gateway over the bare sandbox route', 'gateway-empty', 'floor-empty'],
    ['empty script over a plain read_file call', 'gateway-empty', 'gateway-read'],
    ['one inner read_file over the plain read_file call', 'gateway-inner', 'gateway-read'],
    ['one inner read_file: gateway over the bare sandbox route', 'gateway-inner', 'floor-inner']
  ]
  return pairs.map(([id, of, against]) => {
    const a = byId.get(of) as Load
    const b = byId.get(against) as Load
    return { id, of, against, throughput: round2(a.requestsPerSecond / b.requestsPerSecond), p50: round2(a.p50 / b.p50), p99: round2(a.p99 / b.p99) }
  })
}
