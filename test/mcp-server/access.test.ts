// /mcp under the REST routes' rules: keys required when configured, a key limited to toolsets sees
// and calls only those, a session belongs to the key that opened it, and a cancelled terminal call
// leaves no process behind.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readFile, realpath, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'
import { liveGroupMembers, waitGroupGone } from '../../tools/terminal/lib/process-group.ts'
import { initializeMessage, openSession, rawRpc } from './raw.ts'

type TestContext = Parameters<typeof buildTestApp>[0]

const FULL = 'full-key-0123456789abcdef'
const LIMITED = 'limited-key-0123456789abcdef'
const sha256 = (key: string): string => createHash('sha256').update(key).digest('hex')

/** A gateway with two keys: `full` (every toolset) and `limited` (toolset x only); tools in x and y. */
async function keyedGateway (t: TestContext) {
  const built = await buildTestApp(t)
  await built.app.close()
  const file = join(built.dir, 'gateway.yaml')
  await writeFile(file, [
    'auth:',
    '  keys:',
    `    - { name: full, sha256: ${sha256(FULL)} }`,
    `    - { name: limited, sha256: ${sha256(LIMITED)}, toolsets: [x] }`,
    ''
  ].join('\n'))
  const keyed = await buildTestApp(t, { GATEWAY_CONFIG: file, AUTH_FAILURE_MAX: '1000' })
  keyed.app.gateway.registry.register(fixtureTool('alpha', { toolset: 'x' }))
  keyed.app.gateway.registry.register(fixtureTool('beta', { toolset: 'y' }))
  const address = await keyed.app.listen({ host: '127.0.0.1', port: 0 })
  return new URL(`${address}/mcp`)
}

async function clientWith (t: TestContext, url: URL, key: string): Promise<Client> {
  const client = new Client({ name: 'keyed', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
  t.after(() => client.close())
  return client
}

const PING = { jsonrpc: '2.0', id: 2, method: 'ping' }

test('with keys configured /mcp needs one: 401 with WWW-Authenticate and a JSON-RPC error; clients fail to connect', async (t) => {
  const url = await keyedGateway(t)
  for (const authorization of [undefined, 'Bearer wrong-key']) {
    const refused = await rawRpc(url, PING, authorization === undefined ? {} : { authorization })
    assert.equal(refused.status, 401)
    assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="tool-gateway"')
    assert.equal(refused.message?.error?.data?.code, 'GW_ERR_UNAUTHORIZED')
    assert.match(refused.message?.error?.message ?? '', /Authorization: Bearer/)
  }
  const anonymous = new Client({ name: 'anonymous', version: '1' })
  await assert.rejects(anonymous.connect(new StreamableHTTPClientTransport(url)), /401|Unauthorized/)
  const v1 = new ClientV1({ name: 'v1', version: '1' })
  await v1.connect(new TransportV1(url, { requestInit: { headers: { authorization: `Bearer ${FULL}` } } }))
  t.after(() => v1.close())
  assert.deepEqual((await v1.listTools()).tools.map((tool) => tool.name), ['alpha', 'beta'])
})

test('a key limited to toolsets lists only those, and a tool outside them is unknown, as to /dispatch', async (t) => {
  const url = await keyedGateway(t)
  const limited = await clientWith(t, url, LIMITED)
  assert.deepEqual((await limited.listTools()).tools.map((tool) => tool.name), ['alpha'])
  await assert.rejects(limited.callTool({ name: 'beta', arguments: {} }), (err: Error & { code?: number }) => {
    assert.equal(err.code, -32602)
    assert.match(err.message, /Unknown tool: beta/)
    return true
  })
  // A selection cannot widen the key: y is a toolset it may not use, so, as for /definitions, the
  // URL is refused with the names it may use; the client fails at connect with that reason.
  const widened = new URL(`${url.href}?toolsets=y`)
  const refused = await rawRpc(widened, initializeMessage(), { authorization: `Bearer ${LIMITED}` })
  assert.equal(refused.status, 400)
  assert.equal(refused.message?.error?.data?.code, 'GW_ERR_UNKNOWN_TOOLSET')
  assert.match(refused.message?.error?.message ?? '', /unknown toolset\(s\): y; valid: x, all/)
  const client = new Client({ name: 'widening', version: '1' })
  await assert.rejects(client.connect(new StreamableHTTPClientTransport(widened, { requestInit: { headers: { authorization: `Bearer ${LIMITED}` } } })), /unknown toolset/)
  const full = await clientWith(t, url, FULL)
  assert.equal((await full.callTool({ name: 'beta', arguments: { text: 'b' } })).isError, false)
})

test('a session belongs to the key that opened it: another key gets 404, as for an id that never existed', async (t) => {
  const url = await keyedGateway(t)
  const id = await openSession(url, { authorization: `Bearer ${FULL}` })
  assert.equal((await rawRpc(url, PING, { authorization: `Bearer ${FULL}`, 'mcp-session-id': id })).status, 200)
  const stolen = await rawRpc(url, PING, { authorization: `Bearer ${LIMITED}`, 'mcp-session-id': id })
  assert.equal(stolen.status, 404)
  const stolenEnd = await rawRpc(url, undefined, { authorization: `Bearer ${LIMITED}`, 'mcp-session-id': id }, 'DELETE')
  assert.equal(stolenEnd.status, 404)
  assert.equal((await rawRpc(url, PING, { authorization: `Bearer ${FULL}`, 'mcp-session-id': id })).status, 200)
})

test('notifications/cancelled kills the terminal command the call started, its whole process group', async (t) => {
  const { app, config } = await buildTestApp(t, { GATEWAY_ENABLE_TERMINAL: 'true', TERMINAL_SANDBOX: 'none' }, { builtins: true })
  const url = new URL(`${await app.listen({ host: '127.0.0.1', port: 0 })}/mcp`)
  const client = new Client({ name: 'canceller', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(url))
  t.after(() => client.close())
  const controller = new AbortController()
  const call = client.callTool({ name: 'terminal', arguments: { command: 'echo $$ > pgid; sleep 300 & sleep 300; wait' } }, { signal: controller.signal })
  call.catch(() => {})
  const pgidFile = join(await realpath(config.workspaceRoot).catch(() => config.workspaceRoot), 'pgid')
  let pgid = NaN
  for (let i = 0; i < 500 && Number.isNaN(pgid); i++) {
    pgid = Number.parseInt(await readFile(pgidFile, 'utf8').catch(() => ''), 10)
    if (Number.isNaN(pgid)) await delay(10)
  }
  assert.ok(pgid > 0, 'the command never started')
  for (let i = 0; i < 300 && ((await liveGroupMembers(pgid)) ?? []).length < 3; i++) await delay(10)
  controller.abort(new Error('the user pressed stop'))
  await assert.rejects(call)
  assert.equal(await waitGroupGone(pgid, 5000), true, `left behind: ${await liveGroupMembers(pgid)}`)
})
