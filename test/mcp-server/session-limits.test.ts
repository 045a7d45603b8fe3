// Issue 25 item 3: one caller cannot take every MCP session or hold notification streams without
// end. Sessions and GET /mcp streams are capped per key, streams and sessions end after their
// lifetimes, and a key a reload revokes loses its open streams at once. Real sockets on loopback.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'
import { MCP_HEADERS, openSession, rawRpc } from './raw.ts'

type TestContext = Parameters<typeof buildTestApp>[0]

const sha = (key: string): string => createHash('sha256').update(key).digest('hex')
const keysYaml = (names: string[]): string => `auth:\n  keys:\n${names.map((name) => `    - { name: ${name}, sha256: ${sha(`key-${name}`)} }\n`).join('')}`
const as = (name: string): Record<string, string> => ({ authorization: `Bearer key-${name}` })

async function gateway (t: TestContext, env: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), 'gw-mcp-limits-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'gw.yaml')
  await writeFile(file, keysYaml(['alice', 'bob']))
  const built = await buildTestApp(t, { GATEWAY_CONFIG: file, ...env })
  built.app.gateway.registry.register(fixtureTool('echo'))
  const address = await built.app.listen({ host: '127.0.0.1', port: 0 })
  return { ...built, file, url: new URL(`${address}/mcp`) }
}

interface Stream { status: number, ended: Promise<void>, close: () => void }

/** Opens the session's GET stream; `ended` settles when the server ends it. */
async function openStream (url: URL, session: string, key: string): Promise<Stream> {
  const abort = new AbortController()
  const response = await fetch(url, { headers: { accept: MCP_HEADERS.accept, 'mcp-session-id': session, ...as(key) }, signal: abort.signal })
  const ended = response.status !== 200
    ? response.text().then(() => {})
    : response.body!.pipeTo(new WritableStream()).catch(() => {})
  return { status: response.status, ended, close: () => abort.abort() }
}

async function within<T> (promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms) })
  try { return await Promise.race([promise, late]) } finally { clearTimeout(timer) }
}

test('one key at MCP_MAX_SESSIONS_PER_KEY is served statelessly (calls still work); another key still gets a session', async (t) => {
  const { url } = await gateway(t, { MCP_MAX_SESSIONS_PER_KEY: '3' })
  for (let i = 0; i < 3; i++) await openSession(url, as('alice'))
  const fourth = await rawRpc(url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }, as('alice'))
  assert.equal(fourth.status, 200)
  assert.equal(fourth.headers.get('mcp-session-id'), null, 'past its share alice gets no session')
  const call = await rawRpc(url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } }, as('alice'))
  assert.equal(call.status, 200)
  assert.notEqual(call.message?.result?.isError, true)
  assert.ok(await openSession(url, as('bob')), 'bob is not starved by alice')
})

test('past MCP_MAX_STREAMS_PER_KEY a GET stream is refused 429 with Retry-After, naming the setting; another key and calls still get in', async (t) => {
  const { url } = await gateway(t, { MCP_MAX_STREAMS_PER_KEY: '2' })
  const streams: Stream[] = []
  t.after(() => { for (const stream of streams) stream.close() })
  for (let i = 0; i < 2; i++) {
    streams.push(await openStream(url, await openSession(url, as('alice')), 'alice'))
    assert.equal(streams.at(-1)!.status, 200)
  }
  const third = await fetch(url, { headers: { accept: MCP_HEADERS.accept, 'mcp-session-id': await openSession(url, as('alice')), ...as('alice') } })
  assert.equal(third.status, 429)
  assert.equal(third.headers.get('retry-after'), '30')
  assert.match(((await third.json()) as { error: { message: string } }).error.message, /2 MCP notification streams open.*MCP_MAX_STREAMS_PER_KEY/)
  streams.push(await openStream(url, await openSession(url, as('bob')), 'bob'))
  assert.equal(streams.at(-1)!.status, 200)
  // A closed stream gives its place back.
  streams[0].close()
  await streams[0].ended
  const deadline = Date.now() + 5_000
  let again: Stream
  do {
    again = await openStream(url, await openSession(url, as('alice')), 'alice')
    streams.push(again)
  } while (again.status === 429 && Date.now() < deadline)
  assert.equal(again.status, 200)
})

test('a GET stream ends after MCP_STREAM_MAX_MS, and a busy session ends after MCP_SESSION_MAX_MS', async (t) => {
  const { url } = await gateway(t, { MCP_STREAM_MAX_MS: '300', MCP_SESSION_MAX_MS: '1500' })
  const session = await openSession(url, as('alice'))
  const first = await openStream(url, session, 'alice')
  t.after(() => first.close())
  assert.equal(first.status, 200)
  await within(first.ended, 3_000, 'the stream past its lifetime')
  // Reopened at once (as clients do), it holds the session busy: the session still ends at its lifetime.
  const started = Date.now()
  let ended = false
  while (!ended && Date.now() - started < 6_000) {
    const again = await openStream(url, session, 'alice')
    if (again.status !== 200) { ended = true; break }
    await again.ended
  }
  assert.ok(ended, 'the session outlived MCP_SESSION_MAX_MS')
  assert.equal((await rawRpc(url, { jsonrpc: '2.0', id: 3, method: 'ping' }, { ...as('alice'), 'mcp-session-id': session })).status, 404)
})

test('a key a reload revokes loses its open stream and its sessions at once; a key the reload keeps loses nothing', async (t) => {
  const { url, app, file } = await gateway(t, {})
  const alice = await openSession(url, as('alice'))
  const bob = await openSession(url, as('bob'))
  const aliceStream = await openStream(url, alice, 'alice')
  const bobStream = await openStream(url, bob, 'bob')
  t.after(() => { aliceStream.close(); bobStream.close() })
  assert.equal(aliceStream.status, 200)
  await writeFile(file, keysYaml(['bob']))
  const report = await app.reload()
  assert.equal(report.ok, true, JSON.stringify(report))
  await within(aliceStream.ended, 3_000, 'the revoked key\'s stream to end')
  let bobEnded = false
  bobStream.ended.then(() => { bobEnded = true }, () => {})
  await new Promise((resolve) => setTimeout(resolve, 200))
  assert.equal(bobEnded, false, 'bob\'s stream survived')
  assert.equal((await rawRpc(url, { jsonrpc: '2.0', id: 4, method: 'ping' }, { ...as('bob'), 'mcp-session-id': bob })).status, 200)
  assert.equal((await rawRpc(url, { jsonrpc: '2.0', id: 5, method: 'ping' }, { ...as('alice'), 'mcp-session-id': alice })).status, 401)
})
