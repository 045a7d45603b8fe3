// Issue 25 item 2: work in flight is bounded per connection, per caller and in total; past a limit
// a request is answered at once (429 for a caller's own limits, 503 for the gateway's) with
// Retry-After, never queued; probes still answer. Real sockets on loopback.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

interface Gate { open: () => void, wait: Promise<void> }
function gate (): Gate {
  let open!: () => void
  const wait = new Promise<void>((resolve) => { open = resolve })
  return { open, wait }
}

async function started (t: Parameters<typeof buildTestApp>[0], env: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), 'gw-in-flight-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const sha = (key: string): string => createHash('sha256').update(key).digest('hex')
  await writeFile(join(dir, 'gw.yaml'), `auth:\n  keys:\n    - { name: alpha, sha256: ${sha('ka')} }\n    - { name: beta, sha256: ${sha('kb')} }\n`)
  const built = await buildTestApp(t, { GATEWAY_CONFIG: join(dir, 'gw.yaml'), ...env })
  const held = gate()
  t.after(() => held.open())
  let running = 0
  let most = 0
  built.app.gateway.registry.register(fixtureTool('hold', {
    handler: async () => { most = Math.max(most, ++running); await held.wait; running--; return 'done' }
  }))
  await built.app.listen({ host: '127.0.0.1', port: 0 })
  const address = built.app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return { ...built, port: address.port, held, running: () => running, most: () => most }
}

function call (port: number, key: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/dispatch/hold`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' })
}

async function until (check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

test('one key with 20 calls at once: 6 run, the rest are answered 429 with Retry-After at once; another key and /healthz still get in', async (t) => {
  const gw = await started(t, { IN_FLIGHT_PER_KEY: '6' })
  const calls = Array.from({ length: 20 }, () => call(gw.port, 'ka'))
  await until(() => gw.running() === 6, '6 calls running')
  const refused = await Promise.race(calls)
  assert.equal(refused.status, 429)
  assert.equal(refused.headers.get('retry-after'), '1')
  assert.match(((await refused.json()) as { error: { message: string } }).error.message, /this caller already has 6 requests in flight.*IN_FLIGHT_PER_KEY/)
  assert.equal((await fetch(`http://127.0.0.1:${gw.port}/healthz`)).status, 200)
  const other = call(gw.port, 'kb')
  await until(() => gw.running() === 7, 'the other key\'s call running')
  assert.equal(gw.app.inFlight.total, 7)
  gw.held.open()
  const statuses = await Promise.all(calls.map(async (c) => (await c).status))
  // Calls that reached the gateway after the gate opened ran at once; none waited in a queue.
  assert.ok(statuses.every((s) => s === 200 || s === 429), statuses.join())
  assert.ok(statuses.filter((s) => s === 429).length >= 1)
  assert.equal(gw.most(), 7, 'never more than 6 of one key (and the other key\'s one) at once')
  assert.equal((await other).status, 200)
  await until(() => gw.app.inFlight.total === 0, 'every request counted out again')
})

test('past the total the gateway answers 503 with Retry-After, and takes calls again once they end', async (t) => {
  const gw = await started(t, { IN_FLIGHT_MAX: '3' })
  const calls = ['ka', 'kb', 'ka'].map(async (key) => await call(gw.port, key))
  await until(() => gw.running() === 3, '3 calls running')
  const over = await fetch(`http://127.0.0.1:${gw.port}/tools`, { headers: { authorization: 'Bearer kb' } })
  assert.equal(over.status, 503)
  assert.equal(over.headers.get('retry-after'), '1')
  const body = await over.text()
  assert.match(body, /GW_ERR_OVERLOADED/, body)
  assert.match(body, /IN_FLIGHT_MAX/, body)
  assert.equal((await fetch(`http://127.0.0.1:${gw.port}/readyz`)).status, 200, 'probes are exempt')
  gw.held.open()
  for (const call of calls) assert.equal((await call).status, 200)
  assert.equal((await fetch(`http://127.0.0.1:${gw.port}/tools`, { headers: { authorization: 'Bearer kb' } })).status, 200)
})

test('a client that goes away mid-call is counted out', async (t) => {
  const gw = await started(t, { IN_FLIGHT_PER_KEY: '2' })
  const controller = new AbortController()
  const calls = [0, 1].map(async () => await fetch(`http://127.0.0.1:${gw.port}/dispatch/hold`, { method: 'POST', headers: { authorization: 'Bearer ka', 'content-type': 'application/json' }, body: '{}', signal: controller.signal }).catch(() => undefined))
  await until(() => gw.app.inFlight.total === 2, '2 calls in flight')
  controller.abort()
  await Promise.all(calls)
  await until(() => gw.app.inFlight.total === 0, 'counted out after the close')
  gw.held.open()
})

test('under pressure (heap past MAX_HEAP_USED_BYTES) calls get 503 with Retry-After naming the limit; probes still answer', async (t) => {
  const gw = await started(t, { MAX_HEAP_USED_BYTES: '1' })
  gw.held.open()
  const base = `http://127.0.0.1:${gw.port}`
  let answer: Response | undefined
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    answer = await fetch(`${base}/tools`, { headers: { authorization: 'Bearer ka' } })
    if (answer.status === 503) break
    await answer.arrayBuffer()
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.equal(answer?.status, 503)
  assert.equal(answer.headers.get('retry-after'), '2')
  const body = await answer.text()
  assert.match(body, /GW_ERR_OVERLOADED/)
  assert.match(body, /heap in use \(http\.pressure\.maxHeapUsedBytes, MAX_HEAP_USED_BYTES\)/)
  assert.equal((await fetch(`${base}/healthz`)).status, 200)
  assert.equal((await fetch(`${base}/readyz`)).status, 200)
})
