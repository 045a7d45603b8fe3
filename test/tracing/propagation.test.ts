// Issue 15, item 3: a traced call hands its span's context on: the MCP server over Streamable HTTP
// gets it as the traceparent header (and in the tools/call `_meta`), web pages and the search
// backend as the traceparent header. Real servers on loopback; without tracing nothing is sent.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ReadableSpan } from '@opentelemetry/sdk-trace'
import { buildTestApp } from '../helpers/app.ts'
import { CALLER_TRACE_ID, CALLER_TRACEPARENT, memoryTracer, type MemoryTracer } from '../helpers/tracing.ts'
import { TestMcpHttpServer } from '../mcp-client/helpers/http-server.ts'

/** The traceparent a request made by the call of that span carries. */
function traceparentOf (span: ReadableSpan): string {
  return `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`
}

/** A loopback HTTP server answering `body` as JSON (or a small page) and keeping each request's headers. */
async function recordingServer (t: TestContext, body?: unknown): Promise<{ url: string, headers: IncomingHttpHeaders[] }> {
  const headers: IncomingHttpHeaders[] = []
  const server = createServer((req, res) => {
    headers.push(req.headers)
    if (body === undefined) res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Otters</title></head><body><main><p>Otters hold hands.</p></main></body></html>')
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, headers }
}

async function mcpGateway (t: TestContext, memory: MemoryTracer | undefined): Promise<{ server: TestMcpHttpServer, inject: (headers: Record<string, string>) => Promise<number> }> {
  const server = new TestMcpHttpServer({ add: { run: () => ({ content: [{ type: 'text', text: '3' }] }) } })
  await server.start()
  const dir = await mkdtemp(join(tmpdir(), 'gw-trace-mcp-'))
  await writeFile(join(dir, 'gw.json'), JSON.stringify({ mcpServers: { remote: { url: server.url } } }))
  const { app } = await buildTestApp(t, { GATEWAY_CONFIG: join(dir, 'gw.json') }, { tracer: memory?.tracer })
  t.after(async () => {
    await server.close()
    await rm(dir, { recursive: true, force: true })
  })
  const inject = async (headers: Record<string, string>): Promise<number> =>
    (await app.inject({ method: 'POST', url: '/dispatch/mcp__remote__add', payload: {}, headers })).statusCode
  return { server, inject }
}

function toolsCalls (server: TestMcpHttpServer): Array<{ headers: IncomingHttpHeaders, meta: unknown }> {
  return server.received.flatMap((message, i) => message.method === 'tools/call' ? [{ headers: server.receivedHeaders[i], meta: message.params?._meta }] : [])
}

test('an MCP server over Streamable HTTP receives the call span\'s traceparent as a header and in _meta', async (t) => {
  const memory = memoryTracer()
  const { server, inject } = await mcpGateway(t, memory)
  assert.equal(await inject({ traceparent: CALLER_TRACEPARENT, tracestate: 'vendor=abc' }), 200)
  const span = memory.only('execute_tool mcp__remote__add')
  assert.equal(span.spanContext().traceId, CALLER_TRACE_ID)
  const [call] = toolsCalls(server)
  assert.equal(call.headers.traceparent, traceparentOf(span), 'the header names the dispatch span as parent')
  assert.equal(call.headers.tracestate, 'vendor=abc')
  assert.deepEqual(call.meta, { traceparent: traceparentOf(span), tracestate: 'vendor=abc' })
})

test('web_extract sends the call span\'s traceparent to the page\'s server', async (t) => {
  const memory = memoryTracer()
  const page = await recordingServer(t)
  const { app } = await buildTestApp(t, { WEB_ALLOW_HOSTS: '127.0.0.1' }, { builtins: true, tracer: memory.tracer })
  const res = await app.inject({ method: 'POST', url: '/dispatch/web_extract', payload: { urls: [`${page.url}/otters`] }, headers: { traceparent: CALLER_TRACEPARENT } })
  assert.equal(res.statusCode, 200, res.body)
  assert.match(res.json().content, /Otters hold hands/)
  assert.equal(page.headers.length, 1)
  assert.equal(page.headers[0].traceparent, traceparentOf(memory.only('execute_tool web_extract')))
})

test('web_search sends the call span\'s traceparent to the search backend', async (t) => {
  const memory = memoryTracer()
  const searx = await recordingServer(t, { results: [{ url: 'https://example.org/otters', title: 'Otters', content: 'They hold hands.' }] })
  const { app } = await buildTestApp(t, { SEARXNG_URL: searx.url }, { builtins: true, tracer: memory.tracer })
  const res = await app.inject({ method: 'POST', url: '/dispatch/web_search', payload: { query: 'otters' } })
  assert.equal(res.statusCode, 200, res.body)
  const span = memory.only('execute_tool web_search')
  assert.equal(searx.headers[0].traceparent, traceparentOf(span))
  assert.equal(span.parentSpanContext?.spanId, memory.only('POST /dispatch/:name').spanContext().spanId)
})

test('without tracing, a caller\'s traceparent goes no further: no tracer, nothing handed to tools, no header upstream or to pages', async (t) => {
  const { server, inject } = await mcpGateway(t, undefined)
  assert.equal(await inject({ traceparent: CALLER_TRACEPARENT }), 200)
  const [call] = toolsCalls(server)
  assert.equal(call.headers.traceparent, undefined)
  assert.equal(call.meta, undefined)

  const page = await recordingServer(t)
  const { app } = await buildTestApp(t, { WEB_ALLOW_HOSTS: '127.0.0.1' }, { builtins: true })
  assert.equal(app.tracer, undefined)
  assert.equal(app.gateway.tracer, undefined)
  let seen: unknown = 'not called'
  app.gateway.registry.register({
    name: 'peek', toolset: 'testing', schema: { parameters: { type: 'object' } }, handler: (_args, ctx) => { seen = ctx.traceHeaders; return 'ok' }
  })
  await app.inject({ method: 'POST', url: '/dispatch/peek', payload: {}, headers: { traceparent: CALLER_TRACEPARENT } })
  assert.equal(seen, undefined)
  await app.inject({ method: 'POST', url: '/dispatch/web_extract', payload: { urls: [page.url] }, headers: { traceparent: CALLER_TRACEPARENT } })
  assert.equal(page.headers.length, 1)
  assert.equal(page.headers[0].traceparent, undefined)
})
