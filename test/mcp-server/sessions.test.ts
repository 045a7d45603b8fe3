// MCP sessions on /mcp: the protocol versions, DELETE, the bound on their number, the idle time
// (which an open notification stream or a long call does not count as idle), and their end when the
// gateway closes or drains.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as delay } from 'node:timers/promises'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'
import { drainAndClose } from '../../src/entry/shutdown.ts'
import { initializeMessage, openSession, rawRpc, MCP_HEADERS } from './raw.ts'

type TestContext = Parameters<typeof buildTestApp>[0]

async function gateway (t: TestContext, env: Record<string, string> = {}) {
  const built = await buildTestApp(t, env)
  built.app.gateway.registry.register(fixtureTool('echo'))
  const address = await built.app.listen({ host: '127.0.0.1', port: 0 })
  return { ...built, url: new URL(`${address}/mcp`) }
}

const PING = { jsonrpc: '2.0', id: 2, method: 'ping' }

test('initialize agrees on 2025-06-18 and on 2025-11-25, and names the server and its tool capability', async (t) => {
  const { url } = await gateway(t)
  for (const version of ['2025-06-18', '2025-11-25']) {
    const answer = await rawRpc(url, initializeMessage(version))
    assert.equal(answer.status, 200)
    assert.equal(answer.message?.result?.protocolVersion, version)
    assert.deepEqual(answer.message?.result?.capabilities, { tools: { listChanged: true } })
    assert.equal((answer.message?.result?.serverInfo as { name: string }).name, 'tool-gateway')
    assert.ok(answer.headers.get('mcp-session-id'))
  }
})

test('DELETE ends a session: its id is then unknown (404), and a new initialize opens another', async (t) => {
  const { url } = await gateway(t)
  const id = await openSession(url)
  assert.equal((await rawRpc(url, PING, { 'mcp-session-id': id })).status, 200)
  assert.equal((await rawRpc(url, undefined, { 'mcp-session-id': id }, 'DELETE')).status, 200)
  const after = await rawRpc(url, PING, { 'mcp-session-id': id })
  assert.equal(after.status, 404)
  assert.match(after.message?.error?.message ?? '', /Session not found.*initialize again/)
  assert.notEqual(await openSession(url), id)
})

test('without a session, GET is 405 (no stream to offer) and DELETE is 400, both saying what to send', async (t) => {
  const { url } = await gateway(t)
  const get = await rawRpc(url, undefined, {}, 'GET')
  assert.equal(get.status, 405)
  assert.equal(get.headers.get('allow'), 'POST, DELETE')
  assert.match(get.message?.error?.message ?? '', /Mcp-Session-Id/)
  const del = await rawRpc(url, undefined, {}, 'DELETE')
  assert.equal(del.status, 400)
  assert.match(del.message?.error?.message ?? '', /Mcp-Session-Id/)
})

test('past MCP_MAX_SESSIONS an initialize is served statelessly: no session id, calls still work', async (t) => {
  const { url, log } = await gateway(t, { MCP_MAX_SESSIONS: '1' })
  await openSession(url)
  const second = await rawRpc(url, initializeMessage())
  assert.equal(second.status, 200)
  assert.equal(second.headers.get('mcp-session-id'), null)
  const call = await rawRpc(url, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } })
  assert.deepEqual(call.message?.result?.content, [{ type: 'text', text: '{"echoed":"x"}' }])
  const client = new Client({ name: 'over-the-bound', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(url))
  t.after(() => client.close())
  assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ['echo'])
  assert.equal(log.lines().filter((line) => line.msg === 'MCP session opened').length, 1)
})

test('an idle session is closed after MCP_SESSION_IDLE_MS; one with an open stream is not', async (t) => {
  const { url } = await gateway(t, { MCP_SESSION_IDLE_MS: '300' })
  const idle = await openSession(url)
  const listening = await openSession(url)
  const stream = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': listening } })
  assert.equal(stream.status, 200)
  // Sweeps run every second at most; three seconds is past any sweep of a 300 ms idle time.
  await delay(3000)
  assert.equal((await rawRpc(url, PING, { 'mcp-session-id': idle })).status, 404)
  assert.equal((await rawRpc(url, PING, { 'mcp-session-id': listening })).status, 200)
  await stream.body?.cancel()
})

test('closing the gateway ends open notification streams instead of waiting on them', async (t) => {
  const { url, app } = await gateway(t)
  const id = await openSession(url)
  const stream = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': id } })
  assert.equal(stream.status, 200)
  const ended = stream.body?.pipeTo(new WritableStream()).then(() => 'ended', () => 'ended')
  await app.close()
  assert.equal(await Promise.race([ended, delay(5000, 'still open')]), 'ended')
})

test('while draining every /mcp request is refused 503 with a JSON-RPC error, DELETE included', async (t) => {
  const { url, app } = await gateway(t)
  const id = await openSession(url)
  let release!: () => void
  app.gateway.registry.register(fixtureTool('holds', { handler: async () => { await new Promise<void>((resolve) => { release = resolve }); return 'done' } }))
  const held = rawRpc(url, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'holds', arguments: {} } }, { 'mcp-session-id': id })
  while (app.lifecycle.inFlight < 1) await delay(5)
  const closing = drainAndClose(app, 10_000)
  for (const [method, headers] of [['POST', {}], ['POST', { 'mcp-session-id': id }], ['DELETE', { 'mcp-session-id': id }]] as const) {
    const refused = await rawRpc(url, PING, headers, method)
    assert.equal(refused.status, 503, method)
    assert.equal(refused.message?.error?.code, -32000)
    assert.equal(refused.message?.error?.data?.code, 'GW_ERR_OVERLOADED')
  }
  release()
  assert.deepEqual((await held).message?.result?.content, [{ type: 'text', text: 'done' }])
  await closing
})

test('bad bodies are JSON-RPC errors naming the fault: not JSON, too large, not JSON-RPC', async (t) => {
  const { url } = await gateway(t, { BODY_LIMIT_BYTES: '2048' })
  const notJson = await rawRpc(url, '{oops')
  assert.equal(notJson.status, 400)
  assert.equal(notJson.message?.error?.data?.code, 'GW_ERR_BAD_REQUEST')
  assert.match(notJson.message?.error?.message ?? '', /not valid JSON/)
  const large = await rawRpc(url, { ...PING, params: { padding: 'x'.repeat(4096) } })
  assert.equal(large.status, 413)
  assert.match(large.message?.error?.message ?? '', /larger than the limit of 2048 bytes/)
  // JSON that is no JSON-RPC message: Invalid Request, as JSON-RPC defines it, whatever the revision.
  const notRpc = await rawRpc(url, { hello: 'world' })
  assert.equal(notRpc.status, 400)
  assert.equal(notRpc.message?.error?.code, -32600)
  assert.match(notRpc.message?.error?.message ?? '', /not a valid JSON-RPC message/)
  const plain = await fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, 'content-type': 'text/plain' }, body: 'hi' })
  assert.equal(plain.status, 415)
})
