// GET /results/:id and read_result over real HTTP: a cut result is read back whole by the key that
// made it, and by no other (another key, no key, an expired or unknown id: the same 404); the notice
// tells the model how; the store stays within its cap under a burst of large results, and one
// key's flood of results never evicts another key's.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app/app.ts'
import { loadConfig } from '../../src/config/load.ts'
import { createLogger } from '../../src/app/logger.ts'
import { captureLogger, type CapturedLogger } from '../helpers/logger.ts'
import { fixtureTool } from '../helpers/tools.ts'

const KEYS = { alice: 'alice-key-4f9c1e7a2b', bob: 'bob-key-8d3a6e0c5f', carol: 'carol-key-1b7e9d2c4a' }
// Distinctive, so a search of the log cannot match anything else; emoji, so pages meet surrogate pairs.
const TEXT = Array.from({ length: 12_000 }, (_, i) => `line ${i} zq-payload-7731 🙂\n`).join('')

interface Gateway { app: FastifyInstance, base: string, log: CapturedLogger }

/** A listening gateway with keys alice and bob (every toolset) and carol (toolset x only); tool `big` in x. */
async function gateway (t: { after: (fn: () => Promise<void> | void) => void }, env: Record<string, string> = {}): Promise<Gateway> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-results-'))
  const sha = (key: string): string => createHash('sha256').update(key).digest('hex')
  await writeFile(join(dir, 'gateway.yaml'), [
    'auth:',
    '  keys:',
    `    - { name: alice, sha256: ${sha(KEYS.alice)} }`,
    `    - { name: bob, sha256: ${sha(KEYS.bob)} }`,
    `    - { name: carol, sha256: ${sha(KEYS.carol)}, toolsets: [x] }`,
    ''
  ].join('\n'))
  const loaded = await loadConfig({
    cwd: dir,
    // Only read_result of the shipped tools: the module itself, discovered as in production.
    env: { GATEWAY_CONFIG: 'gateway.yaml', TOOLS_DIR: join(import.meta.dirname, '../../tools/results'), WORKSPACE_ROOT: join(dir, 'workspace'), LOG_LEVEL: 'debug', ...env }
  })
  const log = captureLogger('debug')
  const app = await buildApp(loaded, { logger: createLogger(loaded, log.stream) })
  app.gateway.registry.register(fixtureTool('big', { toolset: 'x', handler: async () => TEXT }))
  t.after(async () => {
    await app.close()
    await rm(dir, { recursive: true, force: true })
  })
  return { app, base: await app.listen({ host: '127.0.0.1', port: 0 }), log }
}

async function call (base: string, key: keyof typeof KEYS | undefined, method: string, path: string, body?: unknown): Promise<{ status: number, json: any }> {
  const headers: Record<string, string> = key === undefined ? {} : { authorization: `Bearer ${KEYS[key]}` }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: res.status, json: await res.json() }
}

test('the key that made a cut call reads it back whole, from the notice\'s offset or page by page', async (t) => {
  const { base, log } = await gateway(t)
  const { status, json: envelope } = await call(base, 'alice', 'POST', '/dispatch/big', {})
  assert.equal(status, 200)
  assert.equal(envelope.truncated, true)
  assert.equal(envelope.originalLength, TEXT.length)
  assert.match(envelope.resultId, /^res_[\w-]{24}$/)
  // The notice names the tool, the id and the offset where the cut begins.
  const notice = /\[\.\.\. truncated (\d+) of (\d+) characters; the full result is kept: call read_result with \{"id": "(res_[\w-]+)", "offset": (\d+)\} to read them \.\.\.\]/.exec(envelope.content)
  assert.ok(notice !== null, envelope.content.slice(39_000, 40_300))
  const [, cut, total, id, offset] = notice
  assert.deepEqual([Number(total), id], [TEXT.length, envelope.resultId])
  assert.ok(envelope.content.length <= 100_000, 'the notice fits within the cap')
  const missing = await call(base, 'alice', 'GET', `/results/${id}?offset=${offset}&limit=${cut}`)
  assert.equal(missing.status, 200)
  const [head, tail] = envelope.content.split(`\n\n${notice[0]}\n\n`)
  assert.equal(missing.json.content.length, Number(cut))
  // assert.ok, not equal: a failure would print 300 000 characters twice.
  assert.ok(head + missing.json.content + tail === TEXT, 'head + what was cut + tail is the whole result')

  let next: number | null = 0
  let rebuilt = ''
  let pages = 0
  while (next !== null) {
    const page = await call(base, 'alice', 'GET', `/results/${id}?offset=${next}&limit=100000`)
    assert.equal(page.status, 200)
    assert.equal(page.json.totalLength, TEXT.length)
    rebuilt += page.json.content
    next = page.json.nextOffset
    pages++
  }
  assert.ok(rebuilt === TEXT, 'the pages rebuild the result')
  assert.equal(pages, Math.ceil(TEXT.length / 100_000))

  // The model's way: read_result, with the notice's arguments.
  const read = await call(base, 'alice', 'POST', '/dispatch/read_result', { id, offset: Number(offset), limit: 500 })
  assert.equal(read.json.ok, true)
  const page = JSON.parse(read.json.content)
  assert.deepEqual(page, { id, offset: Number(offset), content: TEXT.slice(Number(offset), Number(offset) + 500), totalLength: TEXT.length, nextOffset: Number(offset) + 500 })

  // Content never reaches the log (the id may, in a request URL: it is useless to another key).
  assert.ok(!log.text().includes('zq-payload-7731'), 'result text in the log')
})

test('another key, no key, an unknown id: the same 404 (or 401 without a key), over HTTP and through read_result', async (t) => {
  const { base } = await gateway(t)
  const { json: envelope } = await call(base, 'alice', 'POST', '/dispatch/big', {})
  const id = envelope.resultId as string
  const unknown = await call(base, 'bob', 'GET', '/results/res_AAAAAAAAAAAAAAAAAAAAAAAA')
  const foreign = await call(base, 'bob', 'GET', `/results/${id}`)
  assert.equal(foreign.status, 404)
  assert.equal(foreign.json.code, 'GW_ERR_RESULT_NOT_FOUND')
  assert.equal(foreign.json.message.replace(id, '<id>'), unknown.json.message.replace('res_AAAAAAAAAAAAAAAAAAAAAAAA', '<id>'), 'nothing tells a foreign id from an unknown one')
  assert.equal((await call(base, undefined, 'GET', `/results/${id}`)).status, 401)
  const viaTool = await call(base, 'bob', 'POST', '/dispatch/read_result', { id })
  assert.equal(viaTool.json.ok, false)
  assert.match(JSON.parse(viaTool.json.content).error, /^no result res_[\w-]+: it is unknown or has expired/)
  assert.ok(!viaTool.json.content.includes('zq-payload-7731'))
  // The owner still reads it.
  assert.equal((await call(base, 'alice', 'GET', `/results/${id}?limit=10`)).json.content, TEXT.slice(0, 10))
})

test('a key without the results toolset is told of GET /results/:id, and reads its own results there', async (t) => {
  const { base } = await gateway(t)
  const { json: envelope } = await call(base, 'carol', 'POST', '/dispatch/big', {})
  assert.match(envelope.content, new RegExp(`the full result is kept: GET /results/${envelope.resultId}\\?offset=\\d+ reads them`))
  assert.ok(!envelope.content.includes('read_result'), 'read_result does not exist for carol')
  assert.equal((await call(base, 'carol', 'POST', '/dispatch/read_result', { id: envelope.resultId })).status, 404)
  assert.equal((await call(base, 'carol', 'GET', `/results/${envelope.resultId}?offset=5&limit=4`)).json.content, TEXT.slice(5, 9))
  assert.equal((await call(base, 'alice', 'GET', `/results/${envelope.resultId}`)).status, 404)
})

test('bad offsets and limits are 400s that say what is allowed', async (t) => {
  const { base } = await gateway(t)
  const { json: envelope } = await call(base, 'alice', 'POST', '/dispatch/big', {})
  const path = `/results/${envelope.resultId}`
  const past = await call(base, 'alice', 'GET', `${path}?offset=${TEXT.length + 1}`)
  assert.equal(past.status, 400)
  assert.match(past.json.message, new RegExp(`past the end of result ${envelope.resultId}, which has ${TEXT.length} characters`))
  const end = await call(base, 'alice', 'GET', `${path}?offset=${TEXT.length}`)
  assert.deepEqual([end.json.content, end.json.nextOffset], ['', null])
  for (const query of ['limit=0', 'limit=1000001', 'offset=-1', 'offset=abc', 'other=1']) {
    const bad = await call(base, 'alice', 'GET', `${path}?${query}`)
    assert.equal(bad.status, 400, query)
    assert.equal(bad.json.code, 'GW_ERR_BAD_REQUEST', query)
  }
  assert.match((await call(base, 'alice', 'GET', `${path}?limit=0`)).json.message, /limit must be 1 to 1000000/)
  const tool = await call(base, 'alice', 'POST', '/dispatch/read_result', { id: envelope.resultId, offset: TEXT.length + 5 })
  assert.match(JSON.parse(tool.json.content).error, /past the end/)
})

test('an expired result is a 404', async (t) => {
  // Long enough that a loaded machine still reads it once before it expires.
  const { base } = await gateway(t, { RESULTS_TTL_MS: '1500' })
  const { json: envelope } = await call(base, 'alice', 'POST', '/dispatch/big', {})
  assert.equal((await call(base, 'alice', 'GET', `/results/${envelope.resultId}?limit=1`)).status, 200)
  await new Promise((resolve) => setTimeout(resolve, 1800))
  assert.equal((await call(base, 'alice', 'GET', `/results/${envelope.resultId}?limit=1`)).status, 404)
})

test('a burst of large results keeps the store within RESULTS_MAX_TOTAL_BYTES; a result over the per-result cap is only cut', async (t) => {
  const cap = 2_000_000
  // One key alone here: it may fill the store.
  const { app, base } = await gateway(t, { RESULTS_MAX_TOTAL_BYTES: String(cap), RESULTS_MAX_BYTES_PER_KEY: String(cap), RESULTS_MAX_RESULT_BYTES: String(TEXT.length * 2) })
  const calls = Array.from({ length: 40 }, (_, i) => ({ id: `c${i}`, type: 'function', function: { name: 'big', arguments: '{}' } }))
  const batch = await call(base, 'alice', 'POST', '/dispatch', { tool_calls: calls })
  assert.equal(batch.status, 200)
  const ids = (batch.json.results as Array<{ resultId: string }>).map((r) => r.resultId)
  assert.equal(new Set(ids).size, 40)
  assert.ok(app.gateway.results.totalBytes <= cap, `${app.gateway.results.totalBytes} bytes kept`)
  assert.equal(app.gateway.results.size, Math.floor(cap / (TEXT.length * 2)))
  // The newest are readable, the oldest were evicted.
  assert.equal((await call(base, 'alice', 'GET', `/results/${ids[0]}`)).status, 404)

  app.gateway.registry.register(fixtureTool('bigger', { toolset: 'x', handler: async () => `${TEXT}!` }))
  const { json: envelope } = await call(base, 'alice', 'POST', '/dispatch/bigger', {})
  assert.equal(envelope.truncated, true)
  assert.equal(envelope.resultId, undefined)
  assert.match(envelope.content, /\[\.\.\. truncated \d+ of \d+ characters \.\.\.\]/, 'the plain notice: nothing to promise')
})

test('one key\'s thousand kept results never evict another key\'s: it loses its own oldest instead', async (t) => {
  const { app, base } = await gateway(t, { RESULTS_MAX_TOTAL_BYTES: '4000000' })
  const medium = 'm'.repeat(20_000)
  app.gateway.registry.register(fixtureTool('medium', { toolset: 'x', maxResultSizeChars: 100, handler: async () => medium }))
  const { json: mine } = await call(base, 'bob', 'POST', '/dispatch/medium', {})
  assert.match(mine.resultId, /^res_/)
  const flood: string[] = []
  for (let batch = 0; batch < 8; batch++) {
    const calls = Array.from({ length: 125 }, (_, i) => ({ id: `c${batch}_${i}`, type: 'function', function: { name: 'medium', arguments: '{}' } }))
    const { status, json } = await call(base, 'alice', 'POST', '/dispatch', { tool_calls: calls })
    assert.equal(status, 200)
    for (const result of json.results as Array<{ resultId: string }>) flood.push(result.resultId)
  }
  assert.equal(flood.length, 1_000)
  // 40 000 bytes each: alice's quarter of the 4 MB store holds her 25 newest.
  assert.equal(app.gateway.results.bytesOf('alice'), 1_000_000)
  assert.equal((await call(base, 'alice', 'GET', `/results/${flood[0]}`)).status, 404, 'alice\'s oldest went')
  assert.equal((await call(base, 'alice', 'GET', `/results/${flood.at(-1)}`)).status, 200)
  const read = await call(base, 'bob', 'GET', `/results/${mine.resultId}`)
  assert.equal(read.status, 200)
  assert.equal(read.json.content, medium, 'bob\'s one result is still there, whole')
})
