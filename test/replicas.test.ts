// Two replicas of the real gateway (two `node src/server.ts` processes) behind a round-robin proxy,
// sharing one Redis and one workspace folder, as in a deployment with a shared volume: a key's rate
// limit holds across both, an idempotent call retried on the other replica does not run twice, a
// result cut on one is read on the other, an MCP client of revision 2026-07-28 needs no affinity,
// and killing Redis mid-run fails no call (each replica falls back to its memory, /readyz and the
// log say so) until Redis is back and sharing resumes.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { startRedis, type TestRedis } from './helpers/redis-server.ts'
import { startRoundRobinProxy, type RoundRobinProxy } from './helpers/round-robin-proxy.ts'
import { listeningPort, startServer, type ServerProcess } from './helpers/server-process.ts'

const MAX = 10
/** Keys the outage test spreads its calls over, so that none reaches MAX even counted per replica. */
const LOAD_KEYS = Array.from({ length: 40 }, (_, i) => `load-${i}`)
/** One key per purpose, so that no test spends another's budget (the window outlasts the file). */
const KEYS = ['limited', 'bystander', 'idem', 'reader', 'stranger', 'local', 'after', 'ops', 'mcp-caller', 'mcp-reader', ...LOAD_KEYS]
const REQUEST_TIMEOUT_MS = 10_000
const LOAD = { ms: 3_000, maxCalls: 300, loops: 3, killAfterMs: 1_000, killAfterCalls: 100 }

interface Replica { base: string, server: ServerProcess }

interface Answer { status: number, headers: Headers, body: any }

let redis: TestRedis
let proxy: RoundRobinProxy
let replicas: Replica[]
let workspace: string

// Undone last-in first-out: the proxy, then the replicas, then Redis, then the folder.
const cleanups: Array<() => Promise<void> | void> = []
const context = { after: (fn: () => Promise<void> | void) => { cleanups.push(fn) } }
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')

/** Any request of the test: bounded in time, and a failure names what was asked. */
async function send (url: string, key: string, init: RequestInit = {}): Promise<Answer> {
  let response: Response
  try {
    response = await fetch(url, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers as Record<string, string> }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
  } catch (err) {
    // fetch says only "fetch failed"; its cause says what (ECONNRESET, a timeout...).
    const cause = (err as Error).cause instanceof Error ? `: ${((err as Error).cause as Error).message}` : ''
    throw new Error(`${init.method ?? 'GET'} ${url} failed: ${(err as Error).message}${cause}`, { cause: err })
  }
  const text = await response.text()
  const json = (response.headers.get('content-type') ?? '').includes('json')
  return { status: response.status, headers: response.headers, body: json ? JSON.parse(text) : text }
}

function dispatch (base: string, key: string, tool: string, args: object, headers: Record<string, string> = {}): Promise<Answer> {
  return send(`${base}/dispatch/${tool}`, key, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(args) })
}

/** gateway_tool_calls_total of `tool` on one replica, all outcomes together. */
async function toolCalls (replica: Replica, tool: string): Promise<number> {
  const { status, body } = await send(`${replica.base}/metrics`, 'ops')
  assert.equal(status, 200, `GET /metrics: ${body}`)
  let total = 0
  for (const [, labels, value] of (body as string).matchAll(/^gateway_tool_calls_total\{([^}]*)\} (\S+)$/gm)) {
    if (labels.split(',').includes(`tool="${tool}"`)) total += Number(value)
  }
  return total
}

const callsOnBoth = async (tool: string): Promise<number> => (await toolCalls(replicas[0], tool)) + (await toolCalls(replicas[1], tool))

async function readiness (replica: Replica): Promise<Answer> {
  return await send(`${replica.base}/readyz`, 'ops')
}

/** Polls `check` until it holds, failing after `ms` with `what` and the last answer seen. */
async function waitFor (what: string, ms: number, check: () => Promise<{ ok: boolean, seen: unknown }>): Promise<void> {
  const deadline = Date.now() + ms
  let seen: unknown
  while (Date.now() < deadline) {
    const result = await check()
    if (result.ok) return
    seen = result.seen
    await sleep(100)
  }
  throw new Error(`${what}: not after ${ms} ms; last seen: ${JSON.stringify(seen)}`)
}

const redisConnected = (connected: boolean) => async () => {
  const answers = await Promise.all(replicas.map(readiness))
  return { ok: answers.every((answer) => answer.status === 200 && answer.body.redis?.connected === connected), seen: answers.map((answer) => answer.body) }
}

/** MAX + 6 calls of one key in a row through the proxy: their statuses, counted. */
async function spendBudget (key: string): Promise<{ ok: number, limited: number, other: number[], forwarded: number[] }> {
  const before = [...proxy.forwarded]
  const statuses: number[] = []
  for (let i = 0; i < MAX + 6; i++) statuses.push((await dispatch(proxy.url, key, 'read_file', { path: 'small.txt' })).status)
  return {
    ok: statuses.filter((status) => status === 200).length,
    limited: statuses.filter((status) => status === 429).length,
    other: statuses.filter((status) => status !== 200 && status !== 429),
    forwarded: proxy.forwarded.map((count, i) => count - before[i])
  }
}

before(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'gw-replicas-'))
  context.after(() => rm(workspace, { recursive: true, force: true }))
  await writeFile(join(workspace, 'small.txt'), 'a small file\n')
  const configPath = join(workspace, '.gateway.yaml')
  await writeFile(configPath, `auth:\n  keys:\n${KEYS.map((key) => `    - { name: ${key}, sha256: ${sha256(key)} }\n`).join('')}`)
  redis = await startRedis(context)
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: workspace,
    WORKSPACE_ROOT: workspace,
    PORT: '0',
    GATEWAY_CONFIG: configPath,
    REDIS_URL: redis.url,
    // A busy machine may stall a command past the default 500 ms: that replica would then count on
    // its own for a moment, and the exact counts below would be luck. The outage here is a kill,
    // which fails commands at once whatever the timeout.
    REDIS_COMMAND_TIMEOUT_MS: '5000',
    RATE_LIMIT_MAX: String(MAX),
    RATE_LIMIT_WINDOW_MS: '60000',
    LOG_LEVEL: 'info'
  }
  const servers = [startServer(context, env), startServer(context, env)]
  const ports = await Promise.all(servers.map(listeningPort))
  replicas = servers.map((server, i) => ({ base: `http://127.0.0.1:${ports[i]}`, server }))
  proxy = await startRoundRobinProxy(context, ports)
  await waitFor('both replicas ready and connected to Redis', 10_000, redisConnected(true))
})

test('a key\'s rate limit is shared: through the round robin exactly RATE_LIMIT_MAX calls pass, not one budget per replica', async () => {
  const spent = await spendBudget('limited')
  assert.deepEqual(spent.forwarded, [(MAX + 6) / 2, (MAX + 6) / 2], 'the proxy alternates between the replicas')
  assert.deepEqual(spent.other, [], 'only 200 and 429')
  // Counted per replica, each would let MAX through: all MAX + 6 would pass.
  assert.equal(spent.ok, MAX)
  assert.equal(spent.limited, 6)
  const limited = await dispatch(proxy.url, 'limited', 'read_file', { path: 'small.txt' })
  assert.equal(limited.status, 429)
  assert.equal(limited.body.error.code, 'GW_ERR_RATE_LIMITED')
  assert.equal((await dispatch(proxy.url, 'bystander', 'read_file', { path: 'small.txt' })).status, 200, 'another key has its own budget')
})

test('an idempotent call retried on the other replica is not run again, nor a concurrent pair; another body with the key is 422', async () => {
  const [one, two] = replicas
  const before = await callsOnBoth('write_file')
  const request = { path: 'idem/once.txt', content: 'written once' }
  const first = await dispatch(one.base, 'idem', 'write_file', request, { 'idempotency-key': 'retry-1' })
  assert.equal(first.status, 200, JSON.stringify(first.body))
  assert.equal(first.body.ok, true, first.body.content)
  assert.equal(first.headers.get('idempotent-replayed'), null)
  const retry = await dispatch(two.base, 'idem', 'write_file', request, { 'idempotency-key': 'retry-1' })
  assert.equal(retry.status, 200)
  assert.equal(retry.headers.get('idempotent-replayed'), 'true')
  assert.deepEqual(retry.body, first.body, 'the kept answer, as it was')
  assert.equal(await callsOnBoth('write_file') - before, 1, 'write_file ran once over both replicas')
  assert.equal(await readFile(join(workspace, 'idem/once.txt'), 'utf8'), 'written once')

  const pair = { path: 'idem/pair.txt', content: 'written by one of two' }
  const answers = await Promise.all(replicas.map((replica) => dispatch(replica.base, 'idem', 'write_file', pair, { 'idempotency-key': 'pair-1' })))
  assert.deepEqual(answers.map((answer) => answer.status), [200, 200])
  assert.deepEqual(answers[0].body, answers[1].body)
  assert.deepEqual(answers.map((answer) => answer.headers.get('idempotent-replayed')).sort(), ['true', null].sort(), 'one ran, the other replayed')
  assert.equal(await callsOnBoth('write_file') - before, 2, 'the concurrent pair ran once')

  const reused = await dispatch(two.base, 'idem', 'write_file', { ...request, content: 'something else' }, { 'idempotency-key': 'retry-1' })
  assert.equal(reused.status, 422)
  assert.equal(reused.body.error.code, 'GW_ERR_IDEMPOTENCY_KEY_REUSED')
  assert.equal(await callsOnBoth('write_file') - before, 2, 'the refused request ran nothing')
  assert.equal(await readFile(join(workspace, 'idem/once.txt'), 'utf8'), 'written once')
})

test('a result cut on one replica is read whole, page by page, on the other; another key gets 404', async () => {
  const [one, two] = replicas
  const lines = Array.from({ length: 200 }, (_, i) => `line ${i + 1} of a file larger than the cap`)
  await writeFile(join(workspace, 'large.txt'), lines.join('\n') + '\n')
  const cut = await dispatch(one.base, 'reader', 'read_file', { path: 'large.txt' }, { 'x-max-result-chars': '1000' })
  assert.equal(cut.status, 200, JSON.stringify(cut.body))
  assert.equal(cut.body.truncated, true)
  assert.equal(typeof cut.body.resultId, 'string')
  assert.ok(cut.body.originalLength > 5_000, `originalLength ${cut.body.originalLength}`)

  let text = ''
  let offset: number | null = 0
  for (let page = 0; offset !== null; page++) {
    assert.ok(page < 5, 'at most 5 pages of 2000 characters')
    const read = await send(`${two.base}/results/${cut.body.resultId}?offset=${offset}&limit=2000`, 'reader')
    assert.equal(read.status, 200, JSON.stringify(read.body))
    assert.equal(read.body.offset, offset)
    assert.equal(read.body.totalLength, cut.body.originalLength)
    text += read.body.content
    offset = read.body.nextOffset
  }
  assert.equal(text.length, cut.body.originalLength)
  for (const line of lines) assert.ok(text.includes(line), `the full text has "${line}"`)
  // The envelope kept the two ends around a notice naming the kept result.
  const [head, notice, tail] = (cut.body.content as string).split(/(\n\n\[\.\.\. truncated \d+ of \d+ characters; the full result is kept: [^\n]*\]\n\n)/)
  assert.ok(head.length > 0 && tail.length > 0, `a head and a tail around the notice: ${cut.body.content}`)
  assert.ok(notice.includes(cut.body.resultId), notice)
  assert.ok(text.startsWith(head) && text.endsWith(tail), 'the full text has the same ends')

  const stranger = await send(`${two.base}/results/${cut.body.resultId}`, 'stranger')
  assert.equal(stranger.status, 404)
  assert.equal(stranger.body.code, 'GW_ERR_RESULT_NOT_FOUND')
})

/** An SDK 2.4 client pinned to 2026-07-28, connected to /mcp through the proxy with `key`. */
async function modernClient (key: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'replicas', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  const transport = new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } } })
  await client.connect(transport)
  context.after(() => client.close())
  return client
}

test('an MCP client pinned to 2026-07-28 needs no affinity: its calls alternate replicas and all succeed; a cut result is read through the other', async () => {
  const client = await modernClient('mcp-caller')
  const before = [...proxy.forwarded]
  for (let i = 0; i < 6; i++) {
    const result = await client.callTool({ name: 'read_file', arguments: { path: 'small.txt' } })
    assert.equal(result.isError, false, JSON.stringify(result))
    assert.match((result.content as Array<{ text: string }>)[0].text, /a small file/)
  }
  assert.deepEqual(proxy.forwarded.map((count, i) => count - before[i]), [3, 3], 'the six calls alternated between the replicas')

  const lines = Array.from({ length: 200 }, (_, i) => `mcp line ${i + 1} of a file larger than the cap`)
  await writeFile(join(workspace, 'large-mcp.txt'), lines.join('\n') + '\n')
  const reader = await modernClient('mcp-reader', { 'x-max-result-chars': '1000' })
  const atCut = [...proxy.forwarded]
  const cut = await reader.callTool({ name: 'read_file', arguments: { path: 'large-mcp.txt' } })
  const cutOn = proxy.forwarded.findIndex((count, i) => count > atCut[i])
  const outcome = (cut._meta as Record<string, { resultId?: string, truncated?: boolean }>)['tool-gateway/outcome']
  assert.equal(outcome?.truncated, true, JSON.stringify(cut._meta))
  assert.equal(typeof outcome?.resultId, 'string')
  // Read on the other replica, by hand: a modern request is complete in itself, whoever answers it.
  const other = replicas[1 - cutOn]
  const read = await send(`${other.base}/mcp`, 'mcp-reader', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'read_result' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'read_result', arguments: { id: outcome.resultId, limit: 20_000 }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } }
    })
  })
  assert.equal(read.status, 200, JSON.stringify(read.body))
  assert.equal(read.body.result.isError, false, JSON.stringify(read.body))
  const text = read.body.result.content[0].text as string
  for (const line of [lines[0], lines[99], lines[199]]) assert.ok(text.includes(line), `the kept result has "${line}"`)
})

test('killing Redis mid-run fails no call: each replica serves from memory, says so, and shares again once Redis is back', async (t) => {
  await writeFile(join(workspace, 'load.txt'), Array.from({ length: 50 }, (_, i) => `load line ${i}`).join('\n'))
  const started = Date.now()
  let sent = 0
  let killed = false
  let callsAfterKill = 0
  const failures: string[] = []
  // Every fourth call is cut to its cap, so that the kept results go to Redis (or not) as well.
  const loop = async (): Promise<void> => {
    while (Date.now() - started < LOAD.ms && sent < LOAD.maxCalls) {
      const n = sent++
      if (killed) callsAfterKill++
      const headers: Record<string, string> = n % 4 === 0 ? { 'x-max-result-chars': '100' } : {}
      try {
        const answer = await dispatch(proxy.url, LOAD_KEYS[n % LOAD_KEYS.length], 'read_file', { path: 'load.txt' }, headers)
        if (answer.status !== 200 || answer.body.ok !== true) failures.push(`call ${n}: ${answer.status} ${JSON.stringify(answer.body)}`)
      } catch (err) {
        failures.push(`call ${n}: ${(err as Error).message}`)
      }
    }
  }
  const loops = Array.from({ length: LOAD.loops }, loop)
  while (Date.now() - started < LOAD.killAfterMs && sent < LOAD.killAfterCalls) await sleep(10)
  const callsBeforeKill = sent
  await redis.kill()
  killed = true
  await Promise.all(loops)
  t.diagnostic(`${callsBeforeKill} calls before Redis was killed, ${callsAfterKill} after, in ${Date.now() - started} ms`)
  assert.equal(failures.length, 0, `${failures.length} calls did not answer 200, the first ones:\n${failures.slice(0, 3).join('\n')}`)
  assert.ok(callsBeforeKill >= 10, `only ${callsBeforeKill} calls before Redis was killed`)
  assert.ok(callsAfterKill >= 20, `only ${callsAfterKill} calls after Redis was killed`)

  for (const replica of replicas) {
    const ready = await readiness(replica)
    assert.equal(ready.status, 200, 'still ready without Redis')
    assert.equal(ready.body.redis.connected, false)
    assert.ok(ready.body.redis.degraded.length > 0, JSON.stringify(ready.body.redis))
    // A route anyone may read: it does not name Redis's address.
    assert.ok(!JSON.stringify(ready.body).includes(String(redis.port)), JSON.stringify(ready.body))
    const warned = replica.server.stdout().split('\n').filter((line) => line.includes('"level":40') && line.includes('"msg":"Redis connection lost'))
    assert.equal(warned.length, 1, 'one warning per outage in the log')
  }

  // Without Redis an Idempotency-Key still holds on the replica that ran the call.
  const [one] = replicas
  const before = await toolCalls(one, 'write_file')
  const request = { path: 'outage.txt', content: 'written while Redis was down' }
  const first = await dispatch(one.base, 'local', 'write_file', request, { 'idempotency-key': 'outage-1' })
  const retry = await dispatch(one.base, 'local', 'write_file', request, { 'idempotency-key': 'outage-1' })
  assert.deepEqual([first.status, retry.status], [200, 200], JSON.stringify([first.body, retry.body]))
  assert.equal(retry.headers.get('idempotent-replayed'), 'true')
  assert.deepEqual(retry.body, first.body)
  assert.equal(await toolCalls(one, 'write_file') - before, 1)

  await redis.start()
  await waitFor('both replicas connected to Redis again', 12_000, redisConnected(true))
  const spent = await spendBudget('after')
  assert.deepEqual({ ok: spent.ok, limited: spent.limited, other: spent.other }, { ok: MAX, limited: 6, other: [] }, 'the rate limit is shared again')
})
