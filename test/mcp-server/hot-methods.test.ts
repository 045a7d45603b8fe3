// The three 2026-07-28 requests /mcp answers itself (server/discover, tools/list, tools/call) must
// answer exactly what the SDK's own handler answers from the same protocol server: the same
// request goes to both, and the JSON-RPC messages (a progress stream included) must be equal.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { createMcpHandler } from '@modelcontextprotocol/server'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'
import { toolError } from '../../src/registry/tool-result.ts'
import { KeyScope } from '../../src/access/key-scope.ts'
import { selectionCacheKey, type Caller } from '../../src/access/caller.ts'
import { cacheHintsFor } from '../../src/mcp-server/modern-revision.ts'
import { createProtocolServer } from '../../src/mcp-server/protocol-server.ts'
import { HTTP_MODERN_CAPABILITIES } from '../../src/mcp-server/modern-revision.ts'
import { MCP_HEADERS } from './raw.ts'
import { modernHeaders, modernRequest } from './helpers/modern.ts'

/**
 * Every JSON-RPC message of an answer, in order: the body, or each `data:` line of a stream; the
 * two fields that differ from call to call (the call's id and duration) set aside.
 */
function messagesOf (contentType: string | null, text: string): unknown[] {
  const json = contentType?.startsWith('text/event-stream') === true
    ? text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice('data: '.length))
    : [text]
  return json.map((line) => JSON.parse(line, (key, value) => key === 'callId' || key === 'durationMs' ? typeof value : value))
}

test('the hot methods answer what the SDK answers from the same protocol server', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-hot-'))
  const file = join(dir, 'gateway.json')
  await writeFile(file, JSON.stringify({ mcp: { pageSize: 2 } }))
  const { app } = await buildTestApp(t, { GATEWAY_CONFIG: file })
  const { registry } = app.gateway
  registry.register(fixtureTool('echo', { annotations: { readOnly: true, title: 'Echo' } }))
  registry.register(fixtureTool('fails', { handler: async () => toolError('disk full') }))
  registry.register(fixtureTool('steps', {
    handler: async (_args, ctx) => {
      for (let step = 1; step <= 3; step++) ctx.reportProgress?.({ progress: step, total: 3, message: `step ${step}` })
      return 'done'
    }
  }))
  const url = `${await app.listen({ host: '127.0.0.1', port: 0 })}/mcp`

  // The same caller as an open gateway's HTTP request: every tool, no selection.
  const scope = new KeyScope(app.gateway, undefined)
  const caller: Caller = { scope, principal: undefined, logger: pino({ level: 'silent' }), selection: { cacheKey: selectionCacheKey(scope) } }
  const sdk = createMcpHandler(() => createProtocolServer(app, () => caller, cacheHintsFor(app.gateway.config.availability.ttlMs, false), HTTP_MODERN_CAPABILITIES), { legacy: 'reject' })
  t.after(() => sdk.close())

  const firstPage = await fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, ...modernHeaders('tools/list') }, body: JSON.stringify(modernRequest('tools/list', {})) })
  const cursor = ((await firstPage.json()) as { result: { nextCursor: string } }).result.nextCursor
  assert.ok(cursor, 'three tools in pages of two: a second page')

  const cases: Array<{ what: string, method: string, params: Record<string, unknown>, name?: string }> = [
    { what: 'discover', method: 'server/discover', params: {} },
    { what: 'the first page', method: 'tools/list', params: {} },
    { what: 'the second page', method: 'tools/list', params: { cursor } },
    { what: 'a cursor no answer gave', method: 'tools/list', params: { cursor: 'eyJhZnRlciI6NX0' } },
    { what: 'a call', method: 'tools/call', params: { name: 'echo', arguments: { text: 'same' } }, name: 'echo' },
    { what: 'a call without arguments', method: 'tools/call', params: { name: 'echo' }, name: 'echo' },
    { what: 'a failing call', method: 'tools/call', params: { name: 'fails', arguments: {} }, name: 'fails' },
    { what: 'an unknown tool', method: 'tools/call', params: { name: 'nope', arguments: {} }, name: 'nope' },
    { what: 'bad arguments', method: 'tools/call', params: { name: 'echo', arguments: { text: 5 } }, name: 'echo' },
    { what: 'a call with progress', method: 'tools/call', params: { name: 'steps', arguments: {}, _meta: { progressToken: 'p1' } }, name: 'steps' }
  ]
  for (const c of cases) {
    const body = JSON.stringify(modernRequest(c.method, c.params, undefined, `id-${c.what}`))
    const headers = { ...MCP_HEADERS, ...modernHeaders(c.method), ...(c.name === undefined ? {} : { 'mcp-name': c.name }) }
    const viaGateway = await fetch(url, { method: 'POST', headers, body })
    const viaSdk = await sdk.fetch(new Request(url, { method: 'POST', headers, body }), { parsedBody: JSON.parse(body) })
    const gatewayText = await viaGateway.text()
    assert.equal(viaGateway.status, viaSdk.status, `${c.what}: status`)
    assert.equal(viaGateway.headers.get('content-type')?.split(';')[0], viaSdk.headers.get('content-type')?.split(';')[0], `${c.what}: content type`)
    assert.deepEqual(messagesOf(viaGateway.headers.get('content-type'), gatewayText), messagesOf(viaSdk.headers.get('content-type'), await viaSdk.text()), c.what)
    // The gateway's own answers start with "jsonrpc" (the SDK's with "result"): proof the hot path answered.
    assert.match(gatewayText, /^(event: message\ndata: )?\{"jsonrpc"/, `${c.what}: answered by the hot path`)
  }
})
