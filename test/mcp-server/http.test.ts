// /mcp with clients no one here wrote: the SDK v2 client and the v1 client over Streamable HTTP,
// against the real gateway on loopback: list, call, errors, pagination, progress, cancellation,
// list_changed, Origin refusal and keys.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'
import { toolError } from '../../src/registry/tool-result.ts'

async function gateway (t: Parameters<typeof buildTestApp>[0], env: Record<string, string> = {}) {
  const built = await buildTestApp(t, { MCP_SESSION_IDLE_MS: '60000', ...env })
  const { registry } = built.app.gateway
  registry.register(fixtureTool('echo', { annotations: { readOnly: true, idempotent: true, title: 'Echo' } }))
  registry.register(fixtureTool('fails', { handler: async () => toolError('disk full') }))
  registry.register(fixtureTool('other', { toolset: 'elsewhere' }))
  registry.register(fixtureTool('waits', {
    handler: async (_args, ctx) => await new Promise<string>((resolve) => {
      ctx.reportProgress?.({ progress: 1, total: 2, message: 'half' })
      ctx.signal.addEventListener('abort', () => resolve('aborted'))
    })
  }))
  const address = await built.app.listen({ host: '127.0.0.1', port: 0 })
  return { ...built, url: new URL(`${address}/mcp`) }
}

async function connect (t: Parameters<typeof buildTestApp>[0], url: URL): Promise<Client> {
  const client = new Client({ name: 'test', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(url))
  t.after(() => client.close())
  return client
}

test('the v2 client lists and calls tools; a tool error is isError with the HTTP content', async (t) => {
  const { url, app } = await gateway(t)
  const client = await connect(t, url)
  const listed = await client.listTools()
  assert.deepEqual(listed.tools.map((tool) => tool.name), ['echo', 'fails', 'other', 'waits'])
  assert.deepEqual(listed.tools[0].annotations, { title: 'Echo', readOnlyHint: true, idempotentHint: true })
  assert.equal(listed.tools[1].annotations, undefined)
  const ok = await client.callTool({ name: 'echo', arguments: { text: 'hi' } })
  assert.equal(ok.isError, false)
  assert.deepEqual(ok.content, [{ type: 'text', text: '{"echoed":"hi"}' }])
  const failed = await client.callTool({ name: 'fails', arguments: {} })
  const http = await app.inject({ method: 'POST', url: '/dispatch/fails', payload: {} })
  assert.equal(failed.isError, true)
  assert.deepEqual(failed.content, [{ type: 'text', text: http.json().content }])
  await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), /Unknown tool/)
})

test('toolsets in the URL narrow both the list and what may be called', async (t) => {
  const { url } = await gateway(t)
  const client = await connect(t, new URL(`${url.href}?toolsets=elsewhere`))
  assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ['other'])
  await assert.rejects(client.callTool({ name: 'echo', arguments: {} }), /Unknown tool/)
  for (const [query, reason] of [['toolsets=nowhere', /Unknown toolset: .*nowhere.*Valid toolsets: .*elsewhere/], ['toolsets=', /toolsets names no toolset/]] as const) {
    const refused = new Client({ name: 'misconfigured', version: '1' })
    await assert.rejects(refused.connect(new StreamableHTTPClientTransport(new URL(`${url.href}?${query}`))), reason)
  }
})

test('a large list comes in pages through cursors', async (t) => {
  const { url, app } = await gateway(t)
  for (let i = 0; i < 600; i++) app.gateway.registry.register(fixtureTool(`bulk_${String(i).padStart(3, '0')}`))
  // The v2 client follows cursors itself; the raw protocol shows the pages.
  const page = async (cursor?: string) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: cursor === undefined ? {} : { cursor } })
    })
    const text = await response.text()
    return JSON.parse(text.slice(text.indexOf('{'))).result as { tools: Array<{ name: string }>, nextCursor?: string }
  }
  const first = await page()
  assert.equal(first.tools.length, 500)
  assert.ok(first.nextCursor)
  const second = await page(first.nextCursor)
  assert.equal(second.nextCursor, undefined)
  assert.equal((await connect(t, url).then(async (client) => await client.listTools())).tools.length, 604)
  assert.equal(new Set([...first.tools, ...second.tools].map((tool) => tool.name)).size, 604)
})

test('progress reaches the caller, and notifications/cancelled aborts the handler', async (t) => {
  const { url } = await gateway(t)
  const client = await connect(t, url)
  const progress: unknown[] = []
  const controller = new AbortController()
  const call = client.callTool({ name: 'waits', arguments: {} }, {
    signal: controller.signal,
    onprogress: (update) => { progress.push(update); controller.abort(new Error('enough')) }
  })
  await assert.rejects(call)
  assert.deepEqual(progress, [{ progress: 1, total: 2, message: 'half' }])
})

test('sessions hear tools/list_changed when the registry moves', async (t) => {
  const { url, app } = await gateway(t)
  const client = await connect(t, url)
  const changed = Promise.withResolvers<void>()
  client.setNotificationHandler('notifications/tools/list_changed', () => { changed.resolve() })
  await client.listTools()
  // The GET stream opens in the background after initialize; registering again until it is heard.
  const timer = setInterval(() => { app.gateway.registry.register(fixtureTool(`late_${Date.now()}`)) }, 200)
  t.after(() => clearInterval(timer))
  await changed.promise
})

test('the v1 client works the same, statelessly when sessions are off', async (t) => {
  const { url } = await gateway(t, { MCP_MAX_SESSIONS: '0' })
  const client = new ClientV1({ name: 'v1', version: '1' })
  const transport = new TransportV1(url)
  await client.connect(transport)
  t.after(() => client.close())
  assert.equal(transport.sessionId, undefined)
  const result = await client.callTool({ name: 'echo', arguments: { text: 'v1' } })
  assert.deepEqual(result.content, [{ type: 'text', text: '{"echoed":"v1"}' }])
})

test('a foreign Origin is refused 403; an allowed one passes; keys are required when configured', async (t) => {
  const { url } = await gateway(t, { MCP_ALLOWED_ORIGINS: 'http://localhost:6274' })
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  const evil = await fetch(url, { method: 'POST', body, headers: { ...headers, origin: 'http://evil.example' } })
  assert.equal(evil.status, 403)
  assert.match(((await evil.json()) as { error: { message: string } }).error.message, /evil\.example.*not allowed/)
  const good = await fetch(url, { method: 'POST', body, headers: { ...headers, origin: 'http://localhost:6274' } })
  assert.equal(good.status, 200)
  // With a list, only its origins: another loopback page is refused.
  const other = await fetch(url, { method: 'POST', body, headers: { ...headers, origin: 'http://localhost:3000' } })
  assert.equal(other.status, 403)
  // Without one, a loopback gateway takes loopback pages (the MCP Inspector), nothing else.
  const { url: open } = await gateway(t)
  assert.equal((await fetch(open, { method: 'POST', body, headers: { ...headers, origin: 'http://127.0.0.1:6274' } })).status, 200)
  assert.equal((await fetch(open, { method: 'POST', body, headers: { ...headers, origin: 'http://evil.example' } })).status, 403)
})

test('an MCP call goes through the same dispatcher: coercion, validation, the metrics and the call log', async (t) => {
  const { url, app, log } = await gateway(t)
  app.gateway.registry.register(fixtureTool('counts', {
    schema: { parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
    handler: async (args) => JSON.stringify({ doubled: (args.n as number) * 2 })
  }))
  const client = await connect(t, url)
  // A model's "21" is coerced as for /dispatch; a missing argument is the same validation error.
  assert.deepEqual((await client.callTool({ name: 'counts', arguments: { n: '21' } })).content, [{ type: 'text', text: '{"doubled":42}' }])
  const invalid = await client.callTool({ name: 'counts', arguments: {} })
  assert.equal(invalid.isError, true)
  assert.equal((invalid._meta?.['tool-gateway/outcome'] as { status: string, code: string }).status, 'invalid')
  assert.equal((invalid._meta?.['tool-gateway/outcome'] as { code: string }).code, 'GW_ERR_INVALID_ARGUMENTS')
  const metrics = await app.inject({ method: 'GET', url: '/metrics' })
  assert.match(metrics.body, /gateway_tool_calls_total\{tool="counts",status="ok"\} 1/)
  assert.match(metrics.body, /gateway_tool_calls_total\{tool="counts",status="invalid"\} 1/)
  const logged = log.lines().filter((line) => line.msg === 'tool call' && line.tool === 'counts')
  assert.deepEqual(logged.map((line) => line.status), ['ok', 'invalid'])
})

test('the rate limit counts /mcp requests as any others: over it, 429 with Retry-After, as JSON-RPC', async (t) => {
  const { url } = await gateway(t, { RATE_LIMIT_MAX: '3' })
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' }
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  const statuses: number[] = []
  let last: Response | undefined
  for (let i = 0; i < 4; i++) {
    last = await fetch(url, { method: 'POST', headers, body: JSON.stringify(ping) })
    statuses.push(last.status)
    if (i < 3) await last.text()
  }
  assert.deepEqual(statuses, [200, 200, 200, 429])
  assert.ok(last?.headers.get('retry-after'))
  const body = await last?.json() as { jsonrpc: string, error: { data: { code: string } } }
  assert.equal(body.jsonrpc, '2.0')
  assert.equal(body.error.data.code, 'GW_ERR_RATE_LIMITED')
})
