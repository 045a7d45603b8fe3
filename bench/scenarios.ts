// The pairs of scenarios: each gateway request and the floor route doing the same work, both probed
// once before the load so that a wrong answer (an error, a different result text) fails loudly.
import type { Scenario, Target } from './measure.ts'
import { BATCH_FILES, BIG_FILE, BIG_FILE_OFFSET, SEARCH_FOLDER, SEARCH_PATTERN, SMALL_FILE, WRITE_CONTENT, WRITE_FILE } from './fixtures.ts'
import type { ScenarioGroup } from './settings.ts'

/** Response sizes worth keeping with the results (bytes), by scenario. */
export type Sizes = Record<string, number>

interface Envelope { ok: boolean, content: string }

/** One request before the load: the answer's text, failing on any other status than `expected`. */
export async function probe (url: string, init: RequestInit = {}, expected = 200): Promise<{ text: string, response: Response }> {
  const response = await fetch(url, init)
  const text = await response.text()
  if (response.status !== expected) throw new Error(`${url}: expected ${expected}, got ${response.status}: ${text.slice(0, 500)}`)
  return { text, response }
}

const json = (body: unknown): RequestInit & { method: string, headers: Record<string, string>, body: string } =>
  ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

interface CallPair { pair: string, group: ScenarioGroup, tool: string, args: Record<string, unknown>, what: string, pollHealth?: boolean, slow?: Scenario['slow'] }

// A search reads about 360 files before its page of 50 is full: tenths of a second each, so 32 at once
// would outlast a round. Fewer connections keep the server as busy with answers inside each round.
const SEARCH_LOAD = { connections: 4, minRoundSeconds: 2 }

const CALLS: CallPair[] = [
  { pair: 'read-small', group: 'read', tool: 'read_file', args: { path: SMALL_FILE }, what: 'read_file of a 3-line file', pollHealth: true },
  { pair: 'read-page', group: 'read', tool: 'read_file', args: { path: BIG_FILE, offset: BIG_FILE_OFFSET }, what: `read_file, the default page from line ${BIG_FILE_OFFSET} of a 1 MB file`, pollHealth: true },
  { pair: 'write-small', group: 'write', tool: 'write_file', args: { path: WRITE_FILE, content: WRITE_CONTENT }, what: `write_file of ${Buffer.byteLength(WRITE_CONTENT)} bytes, the same path every time (temp file, fsync, rename)` },
  { pair: 'search', group: 'search', tool: 'search_files', args: { pattern: SEARCH_PATTERN, path: SEARCH_FOLDER }, what: `search_files, content search of a 2 000-file tree, first page of 50 matches (${SEARCH_LOAD.connections} connections)`, slow: SEARCH_LOAD },
  { pair: 'echo', group: 'echo', tool: 'echo', args: { text: 'hello from the benchmark' }, what: 'echo tool (the dispatch pipeline alone)' }
]

/** The batch body: one Chat Completions turn of 8 read_file calls. */
const BATCH_BODY = {
  tool_calls: BATCH_FILES.map((path, i) => ({ id: `call_${i + 1}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path }) } }))
}

function pairOf (pair: string, what: string, gateway: Target, floor: Target, requests: { gateway: Scenario['options'], floor: Scenario['options'] }, extra: Pick<Scenario, 'pollHealth' | 'slow'> = {}): Scenario[] {
  const { slow, pollHealth } = extra
  return [
    { pair, side: 'floor', description: `floor: ${what}`, server: floor, options: requests.floor, expectedStatus: 200, pollHealth, slow },
    { pair, side: 'gateway', description: `gateway: ${what}`, server: gateway, options: requests.gateway, expectedStatus: 200, pollHealth, slow }
  ]
}

async function callPair (call: CallPair, gateway: Target, floor: Target, sizes: Sizes): Promise<Scenario[]> {
  const request = json(call.args)
  const viaGateway = await probe(`${gateway.url}/dispatch/${call.tool}`, request)
  const viaFloor = await probe(`${floor.url}/${call.tool}`, request)
  const answer = JSON.parse(viaGateway.text) as Envelope
  const floorAnswer = JSON.parse(viaFloor.text) as Envelope
  if (!answer.ok || answer.content !== floorAnswer.content) {
    throw new Error(`${call.pair}: the gateway and the floor answer differently:\ngateway ${viaGateway.text.slice(0, 600)}\nfloor   ${viaFloor.text.slice(0, 600)}`)
  }
  sizes[call.pair] = Buffer.byteLength(viaGateway.text)
  const what = `${call.what} (${sizes[call.pair]} bytes)`
  return pairOf(call.pair, what, gateway, floor, {
    gateway: { url: `${gateway.url}/dispatch/${call.tool}`, ...request },
    floor: { url: `${floor.url}/${call.tool}`, ...request }
  }, call)
}

async function batchPair (gateway: Target, floor: Target, sizes: Sizes): Promise<Scenario[]> {
  const request = json(BATCH_BODY)
  const viaGateway = await probe(`${gateway.url}/dispatch`, request)
  const viaFloor = await probe(`${floor.url}/batch`, request)
  const answer = JSON.parse(viaGateway.text) as { messages: unknown[], results: Envelope[] }
  const floorAnswer = JSON.parse(viaFloor.text) as { messages: unknown[] }
  if (answer.results.some((result) => !result.ok) || JSON.stringify(answer.messages) !== JSON.stringify(floorAnswer.messages)) {
    throw new Error(`batch: the gateway and the floor answer differently:\ngateway ${viaGateway.text.slice(0, 600)}\nfloor   ${viaFloor.text.slice(0, 600)}`)
  }
  sizes.batch = Buffer.byteLength(viaGateway.text)
  return pairOf('batch', `POST /dispatch, a Chat Completions turn of 8 read_file calls (${sizes.batch} bytes)`, gateway, floor, {
    gateway: { url: `${gateway.url}/dispatch`, ...request },
    floor: { url: `${floor.url}/batch`, ...request }
  })
}

/** The dispatch pairs of the selected groups (probed on the running gateway and floor). */
export async function dispatchScenarios (groups: readonly ScenarioGroup[], gateway: Target, floor: Target, sizes: Sizes): Promise<Scenario[]> {
  const scenarios: Scenario[] = []
  for (const call of CALLS) {
    if (groups.includes(call.group)) scenarios.push(...await callPair(call, gateway, floor, sizes))
  }
  if (groups.includes('batch')) scenarios.push(...await batchPair(gateway, floor, sizes))
  return scenarios
}

/** What a static floor route must serve to stand for GET /definitions: the gateway's bytes and type. */
export interface StaticBytes { pair: string, url: string, bytes: string, contentType: string, tools: number }

export async function fetchDefinitions (pair: string, gateway: Target, url: string): Promise<StaticBytes> {
  const { text, response } = await probe(`${gateway.url}/definitions`)
  return { pair, url, bytes: text, contentType: response.headers.get('content-type') ?? '', tools: (JSON.parse(text) as unknown[]).length }
}

/** GET /definitions against a static route of the floor serving the same bytes. */
export async function definitionsPair (definitions: StaticBytes, gateway: Target, floor: Target, sizes: Sizes): Promise<Scenario[]> {
  const same = await probe(`${floor.url}${definitions.url}`)
  if (same.text !== definitions.bytes || same.response.headers.get('content-type') !== definitions.contentType) {
    throw new Error(`${definitions.pair}: the static route does not serve the gateway's bytes`)
  }
  sizes[definitions.pair] = Buffer.byteLength(definitions.bytes)
  const what = `GET /definitions, ${definitions.tools} tools (${sizes[definitions.pair]} bytes)`
  return [
    { pair: definitions.pair, side: 'floor', description: `floor: static route, the same ${sizes[definitions.pair]} bytes`, server: floor, options: { url: `${floor.url}${definitions.url}` }, expectedStatus: 200 },
    { pair: definitions.pair, side: 'gateway', description: `gateway: ${what}`, server: gateway, options: { url: `${gateway.url}/definitions` }, expectedStatus: 200 }
  ]
}

/** A fresh Idempotency-Key on every request (autocannon's setupRequest), as an agent's retries-safe calls send. */
function freshKeys (prefix: string): NonNullable<Scenario['options']['requests']> {
  let n = 0
  return [{ setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': `${prefix}-${n++}` } }) }]
}

/**
 * write_file on a replica with Redis (REDIS_URL, a rate limit): the shared counter, the key's claim,
 * the write and the kept answer; the floor does the same Redis commands around the same write.
 */
export async function sharedWritePair (gateway: Target, floor: Target, sizes: Sizes): Promise<Scenario[]> {
  const request = json({ path: WRITE_FILE, content: WRITE_CONTENT })
  const once = (key: string): RequestInit => ({ ...request, headers: { ...request.headers, 'idempotency-key': key } })
  const viaGateway = await probe(`${gateway.url}/dispatch/write_file`, once(`probe-${process.pid}`))
  const viaFloor = await probe(`${floor.url}/write_file-shared`, once(`probe-${process.pid}`))
  if (viaGateway.response.headers.get('idempotent-replayed') !== null || (JSON.parse(viaGateway.text) as Envelope).content !== (JSON.parse(viaFloor.text) as Envelope).content) {
    throw new Error(`write-shared: the gateway and the floor answer differently:\ngateway ${viaGateway.text.slice(0, 600)}\nfloor   ${viaFloor.text.slice(0, 600)}`)
  }
  sizes['write-shared'] = Buffer.byteLength(viaGateway.text)
  const what = `write_file with a new Idempotency-Key per request and a rate limit, state in Redis (${sizes['write-shared']} bytes)`
  return pairOf('write-shared', what, gateway, floor, {
    gateway: { url: `${gateway.url}/dispatch/write_file`, ...request, requests: freshKeys(`gw-${process.pid}-${Date.now()}`) },
    floor: { url: `${floor.url}/write_file-shared`, ...request, requests: freshKeys(`floor-${process.pid}-${Date.now()}`) }
  })
}
