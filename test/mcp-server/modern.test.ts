// /mcp in revision 2026-07-28 with a client no one here wrote (the SDK 2.4 client pinned to the
// revision, and in `auto` mode), over a real socket: discover, list, call, errors, progress,
// cancellation, subscriptions/listen; no session; and the protocol's refusals, spoken by hand.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'
import { toolError } from '../../src/registry/tool-result.ts'
import { MCP_HEADERS, rawRpc } from './raw.ts'
import { modernHeaders, modernRequest, REVISION } from './helpers/modern.ts'

async function gateway (t: Parameters<typeof buildTestApp>[0], env: Record<string, string> = {}) {
  const built = await buildTestApp(t, env)
  const { registry } = built.app.gateway
  const aborted = { count: 0 }
  registry.register(fixtureTool('echo', { annotations: { readOnly: true } }))
  registry.register(fixtureTool('fails', { handler: async () => toolError('disk full') }))
  registry.register(fixtureTool('waits', {
    handler: async (_args, ctx) => await new Promise<string>((resolve) => {
      ctx.reportProgress?.({ progress: 1, total: 2, message: 'half' })
      ctx.signal.addEventListener('abort', () => { aborted.count++; resolve('aborted') })
    })
  }))
  const address = await built.app.listen({ host: '127.0.0.1', port: 0 })
  return { ...built, aborted, url: new URL(`${address}/mcp`) }
}

async function connect (t: Parameters<typeof buildTestApp>[0], url: URL, mode: 'auto' | { pin: string } = { pin: REVISION }): Promise<Client> {
  const client = new Client({ name: 'modern-test', version: '1' }, { versionNegotiation: { mode } })
  await client.connect(new StreamableHTTPClientTransport(url))
  t.after(() => client.close())
  return client
}

async function until (condition: () => boolean, what: string, ms = 5_000): Promise<void> {
  const end = Date.now() + ms
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

test('the SDK 2.4 client pinned to 2026-07-28 connects, lists and calls; errors are the same words as over REST', async (t) => {
  const { url, app } = await gateway(t)
  const client = await connect(t, url)
  assert.equal(client.getNegotiatedProtocolVersion(), REVISION)
  assert.equal(client.getProtocolEra(), 'modern')
  assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ['echo', 'fails', 'waits'])
  const ok = await client.callTool({ name: 'echo', arguments: { text: 'hi' } })
  assert.equal(ok.isError, false)
  assert.deepEqual(ok.content, [{ type: 'text', text: '{"echoed":"hi"}' }])
  const failed = await client.callTool({ name: 'fails', arguments: {} })
  assert.equal(failed.isError, true)
  assert.deepEqual(failed.content, [{ type: 'text', text: (await app.inject({ method: 'POST', url: '/dispatch/fails', payload: {} })).json().content }])
  await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), /Unknown tool/)
})

test('a client in auto mode picks 2026-07-28', async (t) => {
  const { url } = await gateway(t)
  const client = await connect(t, url, 'auto')
  assert.equal(client.getNegotiatedProtocolVersion(), REVISION)
  assert.equal((await client.callTool({ name: 'echo', arguments: { text: 'a' } })).isError, false)
})

test('progress reaches the client on the call\'s own stream, and closing it cancels the call', async (t) => {
  const { url, aborted } = await gateway(t)
  const client = await connect(t, url)
  const reports: unknown[] = []
  const stop = new AbortController()
  const call = client.callTool({ name: 'waits', arguments: {} }, { onprogress: (progress) => { reports.push(progress); stop.abort() }, signal: stop.signal })
  await assert.rejects(call)
  assert.deepEqual(reports, [{ progress: 1, total: 2, message: 'half' }])
  await until(() => aborted.count === 1, 'the handler\'s signal to fire')
})

test('subscriptions/listen: acknowledged with what is honoured, told when the tools change', async (t) => {
  const { url, app } = await gateway(t)
  const client = await connect(t, url)
  let changes = 0
  client.setNotificationHandler('notifications/tools/list_changed', () => { changes++ })
  const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true })
  assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true })
  app.gateway.registry.register(fixtureTool('added'))
  await until(() => changes === 1, 'notifications/tools/list_changed')
  assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'added'))
  await subscription.close()
})

test('no session: no Mcp-Session-Id is given, one sent is ignored, and GET is for 2025 sessions only', async (t) => {
  const { url } = await gateway(t)
  const answer = await rawRpc(url, modernRequest('tools/list', {}), { ...modernHeaders('tools/list'), 'mcp-session-id': 'made-up' })
  assert.equal(answer.status, 200)
  assert.equal(answer.headers.get('mcp-session-id'), null)
  assert.equal((answer.message?.result?.tools as unknown[]).length, 3)
  const get = await fetch(url, { headers: { accept: 'text/event-stream' } })
  assert.equal(get.status, 405)
  assert.match(await get.text(), /subscriptions\/listen/)
})

test('discover and list answers carry resultType, serverInfo and cache hints: public on an open gateway', async (t) => {
  const { url } = await gateway(t)
  const discover = await rawRpc(url, modernRequest('server/discover', {}), modernHeaders('server/discover'))
  assert.equal(discover.status, 200)
  assert.deepEqual(discover.message?.result, {
    supportedVersions: [REVISION],
    capabilities: { tools: { listChanged: true }, extensions: { 'io.modelcontextprotocol/tasks': {} } },
    instructions: 'The tools of a tool gateway; each call runs with the gateway\'s validation, deadline and result cap.',
    resultType: 'complete',
    ttlMs: 3_600_000,
    cacheScope: 'public',
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'tool-gateway', version: '0.1.0' } }
  })
  const list = await rawRpc(url, modernRequest('tools/list', {}), modernHeaders('tools/list'))
  assert.equal(list.message?.result?.resultType, 'complete')
  assert.equal(list.message?.result?.ttlMs, 30_000)
  assert.equal(list.message?.result?.cacheScope, 'public')
})

test('with keys the list is private to the key, and a key limited to toolsets sees only those', async (t) => {
  const { createHash } = await import('node:crypto')
  const sha = (key: string) => createHash('sha256').update(key).digest('hex')
  const dir = await (await import('node:fs/promises')).mkdtemp((await import('node:path')).join((await import('node:os')).tmpdir(), 'gw-modern-'))
  const file = `${dir}/gateway.json`
  await (await import('node:fs/promises')).writeFile(file, JSON.stringify({ auth: { keys: [{ name: 'all', sha256: sha('all-key-123456') }, { name: 'few', sha256: sha('few-key-123456'), toolsets: ['elsewhere'] }] } }))
  const { url, app } = await gateway(t, { GATEWAY_CONFIG: file })
  app.gateway.registry.register(fixtureTool('other', { toolset: 'elsewhere' }))
  const as = (key: string, method: string) => ({ ...modernHeaders(method), authorization: `Bearer ${key}` })
  const all = await rawRpc(url, modernRequest('tools/list', {}), as('all-key-123456', 'tools/list'))
  assert.equal(all.message?.result?.cacheScope, 'private')
  assert.equal((all.message?.result?.tools as unknown[]).length, 4)
  const few = await rawRpc(url, modernRequest('tools/list', {}), as('few-key-123456', 'tools/list'))
  assert.deepEqual((few.message?.result?.tools as Array<{ name: string }>).map((tool) => tool.name), ['other'])
  const outside = await rawRpc(url, modernRequest('tools/call', { name: 'echo', arguments: {} }), { ...as('few-key-123456', 'tools/call'), 'mcp-name': 'echo' })
  assert.equal(outside.message?.error?.code, -32602)
  const none = await rawRpc(url, modernRequest('tools/list', {}), modernHeaders('tools/list'))
  assert.equal(none.status, 401)
})

test('bad requests get the protocol\'s error, never a hang or a 500', async (t) => {
  const { url } = await gateway(t)
  const cases: Array<{ what: string, body: unknown, headers: Record<string, string>, status: number, code: number, message: RegExp }> = [
    { what: 'the modern header without the envelope', body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, headers: modernHeaders('tools/list'), status: 400, code: -32602, message: /envelope/ },
    { what: 'an envelope missing clientCapabilities', body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': REVISION } } }, headers: modernHeaders('tools/list'), status: 400, code: -32602, message: /clientCapabilities/ },
    { what: 'an unknown revision', body: modernRequest('tools/list', {}, '2099-01-01'), headers: { ...modernHeaders('tools/list'), 'mcp-protocol-version': '2099-01-01' }, status: 400, code: -32022, message: /Unsupported protocol version/ },
    { what: 'a version header that disagrees with the body', body: modernRequest('tools/list', {}), headers: { ...modernHeaders('tools/list'), 'mcp-protocol-version': '2025-11-25' }, status: 400, code: -32020, message: /protocol version/ },
    { what: 'an Mcp-Method that disagrees', body: modernRequest('tools/list', {}), headers: modernHeaders('tools/call'), status: 400, code: -32020, message: /Mcp-Method/ },
    { what: 'no Mcp-Method', body: modernRequest('tools/list', {}), headers: { 'mcp-protocol-version': REVISION }, status: 400, code: -32020, message: /Mcp-Method/ },
    { what: 'no Mcp-Name on a call', body: modernRequest('tools/call', { name: 'echo', arguments: {} }), headers: modernHeaders('tools/call'), status: 400, code: -32020, message: /Mcp-Name/ },
    { what: 'an Mcp-Name that disagrees', body: modernRequest('tools/call', { name: 'echo', arguments: {} }), headers: { ...modernHeaders('tools/call'), 'mcp-name': 'fails' }, status: 400, code: -32020, message: /Mcp-Name/ },
    { what: 'arguments that are no object', body: modernRequest('tools/call', { name: 'echo', arguments: 5 }), headers: { ...modernHeaders('tools/call'), 'mcp-name': 'echo' }, status: 200, code: -32602, message: /arguments/ },
    { what: 'a method the gateway does not serve', body: modernRequest('resources/list', {}), headers: modernHeaders('resources/list'), status: 404, code: -32601, message: /Method not found/ },
    { what: 'ping, gone in 2026-07-28', body: modernRequest('ping', {}), headers: modernHeaders('ping'), status: 404, code: -32601, message: /Method not found/ },
    { what: 'a listen without its filter', body: modernRequest('subscriptions/listen', {}), headers: modernHeaders('subscriptions/listen'), status: 200, code: -32602, message: /notifications/ },
    { what: 'a listen with a filter of the wrong type', body: modernRequest('subscriptions/listen', { notifications: { toolsListChanged: 'yes' } }), headers: modernHeaders('subscriptions/listen'), status: 200, code: -32602, message: /notifications/ },
    { what: 'a cursor no answer gave', body: modernRequest('tools/list', { cursor: 'bm9wZQ' }), headers: modernHeaders('tools/list'), status: 200, code: -32602, message: /invalid cursor/ }
  ]
  for (const c of cases) {
    const answer = await rawRpc(url, c.body, c.headers)
    assert.equal(answer.status, c.status, `${c.what}: status`)
    assert.equal(answer.message?.error?.code, c.code, `${c.what}: ${JSON.stringify(answer.message)}`)
    assert.match(answer.message?.error?.message ?? '', c.message, c.what)
  }
  // A Base64-encoded Mcp-Name (the SDK decodes it) is as good as a plain one.
  const encoded = await rawRpc(url, modernRequest('tools/call', { name: 'echo', arguments: { text: 'b64' } }), { ...modernHeaders('tools/call'), 'mcp-name': `=?base64?${Buffer.from('echo').toString('base64')}?=` })
  assert.deepEqual(encoded.message?.result?.content, [{ type: 'text', text: '{"echoed":"b64"}' }])
  // A filter naming only what the gateway does not send is acknowledged with nothing honoured, and
  // the stream ends at once with its completion result (the protocol asks servers to acknowledge
  // the subset they honour, so that newer clients can ask for more than an older server knows).
  const unknown = await fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, ...modernHeaders('subscriptions/listen') }, body: JSON.stringify(modernRequest('subscriptions/listen', { notifications: { everything: true } }, REVISION, 7)), signal: AbortSignal.timeout(5_000) })
  const events = (await unknown.text()).split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)))
  assert.deepEqual(events.map((event) => event.method ?? 'result'), ['notifications/subscriptions/acknowledged', 'result'])
  assert.deepEqual(events[0].params.notifications, {})
  assert.equal(events[1].id, 7)
  // Plain text is refused before any MCP rule.
  const plain = await fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, ...modernHeaders('tools/list'), 'content-type': 'text/plain' }, body: 'hi' })
  assert.equal(plain.status, 415)
})

test('the same rules as 2025: ?toolsets= narrows list and calls, a foreign Origin is refused, a draining gateway refuses new requests and ends listens with their completion', async (t) => {
  const { url, app } = await gateway(t)
  app.gateway.registry.register(fixtureTool('other', { toolset: 'elsewhere' }))
  const narrowed = new URL(`${url.href}?toolsets=elsewhere`)
  const list = await rawRpc(narrowed, modernRequest('tools/list', {}), modernHeaders('tools/list'))
  assert.deepEqual((list.message?.result?.tools as Array<{ name: string }>).map((tool) => tool.name), ['other'])
  const outside = await rawRpc(narrowed, modernRequest('tools/call', { name: 'echo', arguments: {} }), { ...modernHeaders('tools/call'), 'mcp-name': 'echo' })
  assert.equal(outside.message?.error?.code, -32602)
  const foreign = await rawRpc(url, modernRequest('tools/list', {}), { ...modernHeaders('tools/list'), origin: 'https://evil.example' })
  assert.equal(foreign.status, 403)

  const listening = await fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, ...modernHeaders('subscriptions/listen') }, body: JSON.stringify(modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }, REVISION, 'sub-1')) })
  const events = listening.text()
  const { drainAndClose } = await import('../../src/entry/shutdown.ts')
  const closing = drainAndClose(app, 5_000)
  const refused = await rawRpc(url, modernRequest('tools/list', {}), modernHeaders('tools/list')).catch(() => undefined)
  // Refused while draining (503), or the port is already closed: never served.
  assert.ok(refused === undefined || refused.status === 503, JSON.stringify(refused))
  const lines = (await events).split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)))
  assert.equal(lines[0].method, 'notifications/subscriptions/acknowledged')
  assert.deepEqual(lines.at(-1), { jsonrpc: '2.0', id: 'sub-1', result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1', 'io.modelcontextprotocol/serverInfo': { name: 'tool-gateway', version: '0.1.0' } } } })
  await closing
})
