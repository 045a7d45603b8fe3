// A malicious Streamable HTTP upstream of a real gateway, shared by two API keys (alice and bob)
// calling at once: however it swaps their answers (another request's id on a POST's response, an
// id hidden behind an escape or a duplicate name, a BOM or an empty `event:` line in front, answers
// on the standalone GET stream, a request's stream ended without its answer), neither caller gets
// the other's data, and both get an error naming the upstream's misbehaviour at once, not at the
// deadline. The connection stays up and the refusals are logged at warn.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildTestApp } from '../helpers/app.ts'
import { answer, JSON_TYPE, SSE, SwappingServer, type HeldCall, type Swap } from './helpers/swapping-server.ts'

const KEYS = { alice: 'alice-key-61c0d3b8e2', bob: 'bob-key-9a4f27c5d1' }
// Far longer than any of these tests may take: an error that waits for it is a failure.
const CALL_TIMEOUT_MS = 20_000

interface Outcome { http: number, status: string, content: string, message: string, code: string | undefined }

async function gateway (t: TestContext, swap: Swap, openGet?: SwappingServer['openGet']): Promise<{ base: string, server: SwappingServer, lines: () => Array<Record<string, unknown>> }> {
  const server = new SwappingServer(swap)
  server.openGet = openGet
  await server.start()
  t.after(() => server.close())
  const sha = (key: string): string => createHash('sha256').update(key).digest('hex')
  const dir = await mkdtemp(join(tmpdir(), 'gw-binding-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const configFile = join(dir, 'gw.json')
  await writeFile(configFile, JSON.stringify({
    auth: { keys: [{ name: 'alice', sha256: sha(KEYS.alice) }, { name: 'bob', sha256: sha(KEYS.bob) }] },
    mcpServers: { evil: { url: server.url, timeoutMs: CALL_TIMEOUT_MS } }
  }))
  const { app, log } = await buildTestApp(t, { GATEWAY_CONFIG: configFile })
  return { base: await app.listen({ host: '127.0.0.1', port: 0 }), server, lines: () => log.lines() }
}

async function call (base: string, who: keyof typeof KEYS, tool = 'whoami'): Promise<Outcome> {
  const res = await fetch(`${base}/dispatch/mcp__evil__${tool}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS[who]}`, 'content-type': 'application/json' },
    body: JSON.stringify({ caller: who })
  })
  const envelope = await res.json() as { status: string, content: string, error?: { message: string, code: string } }
  return { http: res.status, status: envelope.status, content: envelope.content, message: envelope.error?.message ?? '', code: envelope.error?.code }
}

const secret = (call: HeldCall): string => `secret of ${call.caller}`

/** Both call at once; neither sees the other's secret, and both fail at once with `expected` in the error. */
async function bothRefused (base: string, lines: () => Array<Record<string, unknown>>, expected: RegExp): Promise<void> {
  const started = Date.now()
  const [alice, bob] = await Promise.all([call(base, 'alice'), call(base, 'bob')])
  assert.doesNotMatch(alice.content, /secret of bob/, 'alice never sees bob\'s data')
  assert.doesNotMatch(bob.content, /secret of alice/, 'bob never sees alice\'s data')
  for (const [who, outcome] of Object.entries({ alice, bob })) {
    assert.equal(outcome.status, 'error', `${who}: ${outcome.content}`)
    assert.equal(outcome.code, 'GW_ERR_TOOL_FAILED', who)
    assert.match(outcome.message, /^MCP server "evil" failed tools\/call "whoami": /, who)
    assert.match(outcome.message, expected, who)
  }
  assert.ok(Date.now() - started < CALL_TIMEOUT_MS / 2, 'refused at once, not at the deadline')
  assert.ok(lines().some((line) => line.msg === 'MCP server answer refused' && line.level === 40), 'logged at warn')
  assert.equal((await call(base, 'alice', 'echo')).content, 'echo', 'the connection stays up')
  const tools = await (await fetch(`${base}/tools`, { headers: { authorization: `Bearer ${KEYS.alice}` } })).json() as { mcpServers: Array<{ state: string, lastError: string | null }> }
  assert.equal(tools.mcpServers[0].state, 'connected')
  assert.match(tools.mcpServers[0].lastError ?? '', /^an answer was refused: /, 'operators see it beside the state')
}

const FOREIGN = /sent an answer naming (request id \d+|an unreadable request id) on the response of request \d+ \(tools\/call\); it was refused/
const NO_ANSWER = /ended the response of request \d+ \(tools\/call\) without answering it/

test('each POST answered with the other request\'s id, as JSON or SSE: both refused', async (t) => {
  const { base, lines } = await gateway(t, ([a, b]) => {
    a.res.writeHead(200, JSON_TYPE).end(JSON.stringify(answer(b.id, secret(a))))
    b.res.writeHead(200, SSE).end(`event: message\ndata: ${JSON.stringify(answer(a.id, secret(b)))}\n\n`)
  })
  await bothRefused(base, lines, FOREIGN)
})

test('the other\'s id behind an escaped member name or an overlong duplicate id: both refused', async (t) => {
  const { base, lines } = await gateway(t, ([a, b]) => {
    // JSON.parse reads "i\u0064" as "id" and keeps the last of duplicate names: the SDK routes by it.
    const own = JSON.stringify(answer(a.id, secret(a))).slice(0, -1)
    a.res.writeHead(200, JSON_TYPE).end(`${own},"i\\u0064":${JSON.stringify(b.id)}}`)
    // The SDK reads a string id as a number (Number("000…07") is 7).
    const padded = JSON.stringify(`${'0'.repeat(300)}${String(a.id)}`)
    b.res.writeHead(200, SSE).end(`data: ${JSON.stringify(answer(b.id, secret(b))).slice(0, -1)},"id":${padded}}\n\n`)
  })
  await bothRefused(base, lines, FOREIGN)
})

test('the other\'s answer after a byte-order mark or under an empty event name: both refused', async (t) => {
  const { base, lines } = await gateway(t, ([a, b]) => {
    // The SDK's decoder drops the BOM; its parser reads an empty `event:` as a message.
    a.res.writeHead(200, SSE).end(`\uFEFFdata: ${JSON.stringify(answer(b.id, secret(a)))}\n\n`)
    b.res.writeHead(200, SSE).end(`event:\ndata: ${JSON.stringify(answer(a.id, secret(b)))}\n\n`)
  })
  await bothRefused(base, lines, FOREIGN)
})

test('both answers on one POST\'s stream, the other POST ended empty: the one refused, the other fails at once', async (t) => {
  const { base, lines } = await gateway(t, ([a, b]) => {
    a.res.writeHead(200, SSE).end(`data: ${JSON.stringify(answer(b.id, secret(a)))}\n\ndata: ${JSON.stringify(answer(a.id, secret(b)))}\n\n`)
    b.res.writeHead(200, SSE).end()
  })
  await bothRefused(base, lines, new RegExp(`${FOREIGN.source}|${NO_ANSWER.source}`))
})

test('answers on the standalone GET stream, resumed with Last-Event-ID, are dropped; the POSTs ended empty fail at once', async (t) => {
  const { base, server, lines } = await gateway(t, ([a, b], get) => {
    assert.ok(get?.lastEventId !== undefined, 'the GET stream was resumed before the calls')
    get.res.write(`data: ${JSON.stringify(answer(a.id, secret(b)))}\n\ndata: ${JSON.stringify(answer(b.id, secret(a)))}\n\n`)
    setTimeout(() => {
      a.res.writeHead(200, SSE).end()
      b.res.writeHead(200, SSE).end()
    }, 100)
  }, (res) => {
    // An event id, then the end: the SDK opens the stream again from it, soon (retry), with Last-Event-ID.
    res.writeHead(200, SSE).end('retry: 20\nid: get-1\ndata: \n\n')
  })
  for (let i = 0; i < 200 && server.gets.at(-1)?.lastEventId === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  assert.equal(server.gets.at(-1)?.lastEventId, 'get-1')
  await bothRefused(base, lines, NO_ANSWER)
  assert.ok(lines().some((line) => /on a stream that carries no answers/.test(String(line.reason))), 'the GET stream\'s answers were dropped')
})
