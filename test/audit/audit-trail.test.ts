// The audit trail of a real run, line by line: a REST call, a batch, an MCP call in both revisions
// with the SDK clients, a Prefer: respond-async call and refused authentications, with the digest of
// the arguments and never their values (and with audit.arguments, their values redacted); then
// GET /admin/audit for a full key (pages by time and by cursor) and a key limited to toolsets.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { FastifyInstance } from 'fastify'
import { argumentsDigest } from '../../src/audit/line.ts'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'
import { CALLER_TRACE_ID, CALLER_TRACEPARENT, memoryTracer } from '../helpers/tracing.ts'

type TestContext = Parameters<typeof buildTestApp>[0]

const FULL = 'full-key-audit-0123456789'
const LIMITED = 'limited-key-audit-0123456789'
// Distinctive values: a search of the file for them cannot match anything else.
const TEXT = 'argument-value-7f3e9a'
const PASSWORD = 'password-value-2c8d41'
const sha256 = (key: string): string => createHash('sha256').update(key).digest('hex')
const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` })

interface Audited { app: FastifyInstance, file: string, url: URL }

/** A gateway with keys `full` and `limited` (toolset x), the tool `echo` in x, its audit in a file. */
async function auditedGateway (t: TestContext, env: Record<string, string> = {}): Promise<Audited> {
  const built = await buildTestApp(t)
  await built.app.close()
  const config = join(built.dir, 'gateway.yaml')
  await writeFile(config, [
    'auth:',
    '  keys:',
    `    - { name: full, sha256: ${sha256(FULL)} }`,
    `    - { name: limited, sha256: ${sha256(LIMITED)}, toolsets: [x] }`,
    'logging:',
    '  secretArguments: [password]',
    ''
  ].join('\n'))
  // Its own folder, removed once the app is closed: the first app's folder goes before that.
  const auditDir = await mkdtemp(join(tmpdir(), 'gw-audit-'))
  const file = join(auditDir, 'audit.log')
  const { app } = await buildTestApp(t, { GATEWAY_CONFIG: config, AUTH_FAILURE_MAX: '1000', AUDIT_FILE: file, ...env })
  t.after(async () => {
    await app.close()
    await rm(auditDir, { recursive: true, force: true })
  })
  app.gateway.registry.register(fixtureTool('echo', {
    toolset: 'x',
    schema: { description: 'Echoes', parameters: { type: 'object', properties: { text: { type: 'string' }, password: { type: 'string' } } } }
  }))
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  return { app, file, url: new URL(`${address}/mcp`) }
}

async function linesOf ({ app, file }: Audited): Promise<Array<Record<string, unknown>>> {
  await app.audit.flush()
  return (await readFile(file, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
}

const ARGS = { text: TEXT, password: PASSWORD }

/** One call of each way in, and two refused authentications. */
async function runEveryKind (t: TestContext, { app, url }: Audited): Promise<void> {
  const rest = await app.inject({ method: 'POST', url: '/dispatch/echo', headers: { ...bearer(FULL), 'x-tool-call-id': 'call_rest', 'x-request-id': 'req-rest' }, payload: ARGS })
  assert.equal(rest.statusCode, 200, rest.body)
  const batch = await app.inject({
    method: 'POST',
    url: '/dispatch',
    headers: bearer(LIMITED),
    payload: { tool_calls: [{ id: 'call_batch', type: 'function', function: { name: 'echo', arguments: JSON.stringify(ARGS) } }] }
  })
  assert.equal(batch.statusCode, 200, batch.body)
  const started = await app.inject({ method: 'POST', url: '/dispatch/echo', headers: { ...bearer(FULL), prefer: 'respond-async' }, payload: ARGS })
  assert.equal(started.statusCode, 202, started.body)
  const ended = await app.inject({ method: 'GET', url: `/calls/${started.json().callId as string}?wait=5`, headers: bearer(FULL) })
  assert.equal(ended.json().status, 'ok', ended.body)
  const modern = new Client({ name: 'audit-modern', version: '1' })
  await modern.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: bearer(FULL) } }))
  t.after(() => modern.close())
  assert.equal((await modern.callTool({ name: 'echo', arguments: ARGS })).isError, false)
  const legacy = new ClientV1({ name: 'audit-2025', version: '1' })
  await legacy.connect(new TransportV1(url, { requestInit: { headers: bearer(LIMITED) } }))
  t.after(() => legacy.close())
  assert.notEqual((await legacy.callTool({ name: 'echo', arguments: ARGS })).isError, true)
  assert.equal((await app.inject({ method: 'POST', url: '/dispatch/echo', headers: { authorization: 'Bearer wrong-key', 'x-request-id': 'req-refused' }, payload: ARGS })).statusCode, 401)
  assert.equal((await app.inject({ method: 'GET', url: '/definitions?x=1' })).statusCode, 401)
}

test('every way in is one line, field by field, with the digest of the arguments and never their values', async (t) => {
  const audited = await auditedGateway(t)
  await runEveryKind(t, audited)
  const lines = await linesOf(audited)
  const text = await readFile(audited.file, 'utf8')
  assert.ok(!text.includes(TEXT) && !text.includes(PASSWORD), 'no argument value is written')
  const calls = lines.filter((line) => line.type === 'call')
  assert.deepEqual(calls.map((line) => [line.via, line.principal]), [['rest', 'full'], ['batch', 'limited'], ['async', 'full'], ['mcp', 'full'], ['mcp', 'limited']])
  for (const line of calls) {
    assert.equal(line.tool, 'echo')
    assert.equal(line.status, 'ok')
    assert.equal(typeof line.durationMs, 'number')
    assert.equal(typeof line.requestId, 'string')
    assert.ok(Number.isInteger(line.resultBytes) && (line.resultBytes as number) > 0)
    assert.ok(!('args' in line))
    assert.equal(Number.isNaN(Date.parse(line.time as string)), false)
  }
  const [rest, batch] = calls
  assert.deepEqual({ ...rest, time: undefined, seq: undefined, durationMs: undefined }, {
    time: undefined,
    seq: undefined,
    type: 'call',
    via: 'rest',
    tool: 'echo',
    callId: 'call_rest',
    status: 'ok',
    durationMs: undefined,
    resultBytes: Buffer.byteLength(JSON.stringify({ echoed: TEXT })),
    principal: 'full',
    requestId: 'req-rest',
    argsDigest: argumentsDigest(ARGS)
  })
  assert.equal(batch.callId, 'call_batch')
  assert.equal(batch.argsDigest, argumentsDigest(JSON.stringify(ARGS)), 'the model\'s JSON string is digested as sent')
  const seqs = lines.map((line) => line.seq as number)
  assert.deepEqual(seqs, seqs.map((_, i) => i + 1), 'one sequence, in order')
  const refused = lines.filter((line) => line.type === 'auth_refused')
  assert.deepEqual(refused.map(({ reason, status, method, path, detail }) => ({ reason, status, method, path, detail })), [
    { reason: 'unauthorized', status: 401, method: 'POST', path: '/dispatch/echo', detail: { credential: 'presented' } },
    { reason: 'unauthorized', status: 401, method: 'GET', path: '/definitions', detail: { credential: 'none' } }
  ])
  assert.equal(refused[0].requestId, 'req-refused')
  assert.equal(refused[0].principal, undefined)
})

test('with audit.arguments the values are written, redacted as error text is', async (t) => {
  const audited = await auditedGateway(t, { AUDIT_ARGUMENTS: 'true' })
  const token = 'ghp_0123456789abcdefABCDEF0123456789abcd'
  const call = await audited.app.inject({ method: 'POST', url: '/dispatch/echo', headers: bearer(FULL), payload: { text: `${TEXT} with ${token}`, password: PASSWORD } })
  assert.equal(call.statusCode, 200, call.body)
  const [line] = (await linesOf(audited)).filter((entry) => entry.type === 'call')
  assert.deepEqual(line.args, { text: `${TEXT} with [redacted]`, password: '[redacted]' })
  const text = await readFile(audited.file, 'utf8')
  assert.ok(!text.includes(PASSWORD) && !text.includes(token))
})

test('GET /admin/audit: a full key pages through the lines by time and by cursor; a limited key is refused', async (t) => {
  const audited = await auditedGateway(t)
  const { app } = audited
  const before = new Date().toISOString()
  for (let i = 0; i < 3; i++) {
    assert.equal((await app.inject({ method: 'POST', url: '/dispatch/echo', headers: bearer(FULL), payload: { text: `n${i}` } })).statusCode, 200)
  }
  const limited = await app.inject({ method: 'GET', url: '/admin/audit', headers: bearer(LIMITED) })
  assert.ok(limited.statusCode === 403 || limited.statusCode === 401, limited.body)
  assert.ok(!limited.body.includes('"lines"'))
  const first = await app.inject({ method: 'GET', url: `/admin/audit?since=${encodeURIComponent(before)}&limit=2`, headers: bearer(FULL) })
  assert.equal(first.statusCode, 200, first.body)
  const page = first.json()
  assert.deepEqual(page.lines.map((line: { type: string, tool: string }) => [line.type, line.tool]), [['call', 'echo'], ['call', 'echo']])
  assert.equal(page.truncated, false)
  const next = (await app.inject({ method: 'GET', url: `/admin/audit?cursor=${page.cursor as string}`, headers: bearer(FULL) })).json()
  // The third call, the limited key's refusal (an operator's route: 403 naming it, or 401), then the first read.
  assert.deepEqual(next.lines.map((line: { type: string }) => line.type), ['call', 'auth_refused', 'admin'])
  assert.equal(next.lines[1].reason, limited.statusCode === 403 ? 'operator_required' : 'unauthorized')
  assert.equal(next.lines[1].path, '/admin/audit')
  assert.equal(next.lines[2].action, 'audit_read')
  assert.equal(next.lines[2].principal, 'full')
  const last = (await app.inject({ method: 'GET', url: `/admin/audit?cursor=${next.cursor as string}`, headers: bearer(FULL) })).json()
  assert.deepEqual(last.lines.map((line: { action: string }) => line.action), ['audit_read'], 'only the second read is newer')
  const bad = await app.inject({ method: 'GET', url: '/admin/audit?since=yesterday', headers: bearer(FULL) })
  assert.equal(bad.statusCode, 400)
  assert.match(bad.body, /ISO 8601/)
})

test('a reload is an admin action of the trail', async (t) => {
  const audited = await auditedGateway(t)
  assert.equal((await audited.app.reload()).ok, true)
  const [line] = (await linesOf(audited)).filter((entry) => entry.type === 'admin')
  assert.equal(line.action, 'reload')
  assert.equal(line.status, 'ok')
  assert.equal(typeof (line.detail as { generation: number }).generation, 'number')
})

test('with tracing on, a line names the trace of its request: the caller\'s, or the one the gateway began', async (t) => {
  const memory = memoryTracer()
  const { app } = await buildTestApp(t, {}, { tracer: memory.tracer })
  app.gateway.registry.register(fixtureTool('echo'))
  await app.inject({ method: 'POST', url: '/dispatch/echo', headers: { traceparent: CALLER_TRACEPARENT }, payload: { text: 'a' } })
  await app.inject({ method: 'POST', url: '/dispatch/echo', payload: { text: 'b' } })
  const lines = app.audit.page({ limit: 10 }).lines.map((line) => JSON.parse(line) as Record<string, unknown>)
  const traces = memory.spans().filter((span) => span.name === 'execute_tool echo').map((span) => span.spanContext().traceId)
  assert.deepEqual(lines.map((line) => line.traceId), traces)
  assert.equal(traces[0], CALLER_TRACE_ID)
  assert.match(traces[1], /^[0-9a-f]{32}$/)
  assert.notEqual(traces[1], CALLER_TRACE_ID)
})

test('with audit.enabled false nothing is recorded and GET /admin/audit answers no lines', async (t) => {
  const audited = await auditedGateway(t, { AUDIT_ENABLED: 'false' })
  assert.equal((await audited.app.inject({ method: 'POST', url: '/dispatch/echo', headers: bearer(FULL), payload: ARGS })).statusCode, 200)
  const page = await audited.app.inject({ method: 'GET', url: '/admin/audit', headers: bearer(FULL) })
  assert.deepEqual(page.json(), { lines: [], cursor: '0', truncated: false })
  await audited.app.audit.flush()
  await assert.rejects(readFile(audited.file, 'utf8'), { code: 'ENOENT' })
})
