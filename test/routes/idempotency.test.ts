// Idempotency-Key on the dispatch routes, with records in memory (no Redis): a retry replays the
// kept answer without running the tool again, a concurrent duplicate waits for the first, another
// request under the same key is a 422, keys belong to one API key (and one key's flood never evicts
// another's answer), and a call with a key outlives
// its client so that the retry finds its answer.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { toolResult } from '../../src/registry/tool-result.ts'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

const sha = (key: string): string => createHash('sha256').update(key).digest('hex')

/** An app with `count` (answers how often it ran) and `gate` (runs until the test opens it). */
async function appWithCounters (t: Parameters<typeof buildTestApp>[0], env: Record<string, string> = {}): Promise<{ app: FastifyInstance, runs: Map<string, number>, open: () => void, started: Promise<void> }> {
  const { app } = await buildTestApp(t, env)
  const runs = new Map<string, number>()
  const count = (name: string): number => { runs.set(name, (runs.get(name) ?? 0) + 1); return runs.get(name) as number }
  const gate = Promise.withResolvers<void>()
  const started = Promise.withResolvers<void>()
  app.gateway.registry.register(fixtureTool('count', { handler: async (args) => toolResult({ run: count('count'), text: args.text ?? null }) }))
  app.gateway.registry.register(fixtureTool('gate', {
    handler: async () => {
      const run = count('gate')
      started.resolve()
      await gate.promise
      return toolResult({ run })
    }
  }))
  return { app, runs, open: () => gate.resolve(), started: started.promise }
}

const call = async (app: FastifyInstance, tool: string, body: unknown, headers: Record<string, string> = {}) =>
  await app.inject({ method: 'POST', url: `/dispatch/${tool}`, payload: body as object, headers })

test('the same key and request answer the kept envelope without running the tool again', async (t) => {
  const { app, runs } = await appWithCounters(t)
  const first = await call(app, 'count', { text: 'a' }, { 'idempotency-key': 'key-1', 'x-tool-call-id': 'call_1' })
  const retry = await call(app, 'count', { text: 'a' }, { 'idempotency-key': 'key-1', 'x-tool-call-id': 'call_1' })
  assert.equal(first.statusCode, 200)
  assert.equal(first.headers['idempotent-replayed'], undefined)
  assert.equal(retry.statusCode, 200)
  assert.equal(retry.headers['idempotent-replayed'], 'true')
  assert.deepEqual(retry.json(), first.json())
  assert.equal(runs.get('count'), 1)
  // Without a key, or with another key, the tool runs.
  await call(app, 'count', { text: 'a' })
  await call(app, 'count', { text: 'a' }, { 'idempotency-key': 'key-2', 'x-tool-call-id': 'call_1' })
  assert.equal(runs.get('count'), 3)
})

test('the same key with another tool, other arguments or other call headers is a 422 naming the key', async (t) => {
  const { app, runs } = await appWithCounters(t)
  app.gateway.registry.register(fixtureTool('other'))
  assert.equal((await call(app, 'count', { text: 'a' }, { 'idempotency-key': 'k' })).statusCode, 200)
  for (const [tool, body, headers] of [
    ['count', { text: 'b' }, {}],
    ['other', { text: 'a' }, {}],
    ['count', { text: 'a' }, { 'x-max-result-chars': '10' }]
  ] as const) {
    const reused = await call(app, tool, body, { 'idempotency-key': 'k', ...headers })
    assert.equal(reused.statusCode, 422)
    const envelope = reused.json()
    assert.equal(envelope.error.code, 'GW_ERR_IDEMPOTENCY_KEY_REUSED')
    assert.match(JSON.parse(envelope.content).error, /Idempotency-Key "k" was used for a different request/)
  }
  assert.equal(runs.get('count'), 1)
})

test('a duplicate sent while the first call runs waits for it and answers the same envelope', async (t) => {
  const { app, runs, open, started } = await appWithCounters(t)
  const first = call(app, 'gate', {}, { 'idempotency-key': 'slow' })
  await started
  const duplicate = call(app, 'gate', {}, { 'idempotency-key': 'slow' })
  // The duplicate is waiting, not running: give it time to (wrongly) start.
  await new Promise((resolve) => setTimeout(resolve, 50))
  assert.equal(runs.get('gate'), 1)
  open()
  const [a, b] = await Promise.all([first, duplicate])
  assert.deepEqual(b.json(), a.json())
  assert.equal(b.headers['idempotent-replayed'], 'true')
  assert.equal(runs.get('gate'), 1)
})

test('keys belong to one API key: the same key under another API key is another request', async (t) => {
  const { dir } = await buildTestApp(t)
  await writeFile(join(dir, 'gw.yaml'), `auth:\n  keys:\n    - { name: a, sha256: ${sha('key-a')} }\n    - { name: b, sha256: ${sha('key-b')} }\n`)
  const { app, runs } = await appWithCounters(t, { GATEWAY_CONFIG: join(dir, 'gw.yaml') })
  const as = (key: string) => ({ authorization: `Bearer ${key}`, 'idempotency-key': 'shared-name' })
  const a = await call(app, 'count', { text: 'x' }, as('key-a'))
  const b = await call(app, 'count', { text: 'x' }, as('key-b'))
  assert.equal(b.headers['idempotent-replayed'], undefined)
  assert.notDeepEqual(b.json(), a.json())
  assert.equal(runs.get('count'), 2)
  // B's different body under the same key name is no conflict with A's.
  assert.equal((await call(app, 'count', { text: 'y' }, as('key-b'))).statusCode, 422)
  assert.equal((await call(app, 'count', { text: 'y' }, { ...as('key-a'), 'idempotency-key': 'other' })).statusCode, 200)
})

test('one API key\'s flood of keyed calls does not evict another\'s answer: its retry replays, the tool ran once', async (t) => {
  const { dir } = await buildTestApp(t)
  await writeFile(join(dir, 'gw.yaml'), `auth:\n  keys:\n    - { name: a, sha256: ${sha('key-a')} }\n    - { name: b, sha256: ${sha('key-b')} }\n`)
  const { app, runs } = await appWithCounters(t, { GATEWAY_CONFIG: join(dir, 'gw.yaml'), IDEMPOTENCY_MAX_TOTAL_BYTES: '200000' })
  const as = (key: string, name: string) => ({ authorization: `Bearer ${key}`, 'idempotency-key': name })
  const first = await call(app, 'count', { text: 'b' }, as('key-b', 'b-1'))
  for (let n = 0; n < 1_000; n++) {
    assert.equal((await call(app, 'count', { text: 'a'.repeat(200) }, as('key-a', `a-${n}`))).statusCode, 200)
  }
  const retry = await call(app, 'count', { text: 'b' }, as('key-b', 'b-1'))
  assert.equal(retry.headers['idempotent-replayed'], 'true')
  assert.deepEqual(retry.json(), first.json())
  assert.equal(runs.get('count'), 1_001, 'b\'s call ran once')
  // A's own oldest answers made room for its newest, within a quarter of the store.
  assert.equal((await call(app, 'count', { text: 'a'.repeat(200) }, as('key-a', 'a-999'))).headers['idempotent-replayed'], 'true')
  assert.equal((await call(app, 'count', { text: 'a'.repeat(200) }, as('key-a', 'a-0'))).headers['idempotent-replayed'], undefined)
})

test('a batch with a key is answered again whole without running any of its calls', async (t) => {
  const { app, runs } = await appWithCounters(t)
  const batch = { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'count', arguments: '{"text":"1"}' } }, { id: 'c2', type: 'function', function: { name: 'count', arguments: '{"text":"2"}' } }] }
  const first = await app.inject({ method: 'POST', url: '/dispatch', payload: batch, headers: { 'idempotency-key': 'turn-7' } })
  const retry = await app.inject({ method: 'POST', url: '/dispatch', payload: batch, headers: { 'idempotency-key': 'turn-7' } })
  assert.equal(first.statusCode, 200)
  assert.deepEqual(retry.json(), first.json())
  assert.equal(retry.headers['idempotent-replayed'], 'true')
  assert.equal(runs.get('count'), 2)
  const changed = await app.inject({ method: 'POST', url: '/dispatch', payload: { tool_calls: batch.tool_calls.slice(1) }, headers: { 'idempotency-key': 'turn-7' } })
  assert.equal(changed.statusCode, 422)
})

test('answers that say the call did not run are not kept: a retry runs it', async (t) => {
  const { app, runs } = await appWithCounters(t)
  let available = false
  app.gateway.registry.register(fixtureTool('flaky', { checkFn: () => available, handler: async () => toolResult({ ran: true }) }))
  const refused = await call(app, 'flaky', {}, { 'idempotency-key': 'later' })
  assert.equal(refused.statusCode, 503)
  available = true
  app.gateway.availability.clear()
  const retried = await call(app, 'flaky', {}, { 'idempotency-key': 'later' })
  assert.equal(retried.statusCode, 200)
  assert.equal(retried.headers['idempotent-replayed'], undefined)
  // A tool's own failure did run: it is kept like any answer.
  app.gateway.registry.register(fixtureTool('fails', { handler: async () => { runs.set('fails', (runs.get('fails') ?? 0) + 1); throw new Error('disk full') } }))
  await call(app, 'fails', {}, { 'idempotency-key': 'f' })
  const again = await call(app, 'fails', {}, { 'idempotency-key': 'f' })
  assert.equal(again.headers['idempotent-replayed'], 'true')
  assert.equal(runs.get('fails'), 1)
})

test('an Idempotency-Key that is empty, too long or not visible ASCII is a 400 naming the header', async (t) => {
  const { app, runs } = await appWithCounters(t)
  for (const key of ['x'.repeat(256), 'with space', 'ключ']) {
    const refused = await app.inject({ method: 'POST', url: '/dispatch/count', payload: {}, headers: { 'idempotency-key': Buffer.from(key).toString('latin1') } })
    assert.equal(refused.statusCode, 400, key)
    assert.match(refused.body, /idempotency-key/)
  }
  assert.equal(runs.get('count'), undefined)
})

test('a call with a key runs to its end when its client goes away, and the retry gets its answer', async (t) => {
  const { app, runs, open, started } = await appWithCounters(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const req = httpRequest({ port, host: '127.0.0.1', method: 'POST', path: '/dispatch/gate', headers: { 'content-type': 'application/json', 'idempotency-key': 'timeout-retry' } })
  req.on('error', () => {})
  req.end('{}')
  await started
  req.destroy()
  // The retry arrives while the first still runs, after its client gave up: it waits for the answer.
  const retry = fetch(`http://127.0.0.1:${port}/dispatch/gate`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'timeout-retry' }, body: '{}' })
  await new Promise((resolve) => setTimeout(resolve, 50))
  open()
  const answer = await retry
  assert.equal(answer.status, 200)
  assert.equal(answer.headers.get('idempotent-replayed'), 'true')
  assert.equal(JSON.parse((await answer.json() as { content: string }).content).run, 1)
  assert.equal(runs.get('gate'), 1)
})
