// The pre-screen that spares well-formed hot requests the SDK's classifier may only take what the
// classifier would route to the same place: for any request it accepts, the classifier says
// 2026-07-28 request of the same method, and hotRequestOf accepts it too. Requests are generated
// from a valid one with every field varied (missing, other types, odd values, other headers).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import type { FastifyRequest } from 'fastify'
import { classifyInboundRequest } from '@modelcontextprotocol/server'
import { plainHotRequest } from '../../src/mcp-server/plain-hot-request.ts'
import { hotRequestOf } from '../../src/mcp-server/hot-methods.ts'

const REVISION = '2026-07-28'
const odd = fc.constantFrom<unknown>(undefined, null, 5, 1.5, -3, '', 'x', ' echo', [], [1], {}, { a: 1 }, true, REVISION, '2025-11-25', '2099-01-01', 'tools/call',
  { listChanged: 'yes' }, { roots: { listChanged: 'yes' } }, { sampling: {} }, { name: 'c' }, { name: 5, version: '1' }, '=?base64?ZWNobw==?=', { ttl: 1000 })

/** A request as an SDK 2.4 client sends it, headers included. */
function valid (method: string): { body: Record<string, unknown>, headers: Record<string, unknown> } {
  const params: Record<string, unknown> = {
    _meta: { 'io.modelcontextprotocol/protocolVersion': REVISION, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' } }
  }
  if (method === 'tools/call') Object.assign(params, { name: 'echo', arguments: { text: 'a' } })
  const headers: Record<string, unknown> = { 'mcp-protocol-version': REVISION, 'mcp-method': method }
  if (method === 'tools/call') headers['mcp-name'] = 'echo'
  return { body: { jsonrpc: '2.0', id: 1, method, params }, headers }
}

/** Where a mutation may land: every field of the body, its params and envelope, and each header. */
const PATHS: string[][] = [
  ['body', 'jsonrpc'], ['body', 'id'], ['body', 'method'], ['body', 'params'], ['body', 'result'], ['body', 'error'],
  ['body', 'params', '_meta'], ['body', 'params', 'name'], ['body', 'params', 'arguments'], ['body', 'params', 'cursor'], ['body', 'params', 'task'],
  ['body', 'params', '_meta', 'io.modelcontextprotocol/protocolVersion'], ['body', 'params', '_meta', 'io.modelcontextprotocol/clientCapabilities'],
  ['body', 'params', '_meta', 'io.modelcontextprotocol/clientInfo'], ['body', 'params', '_meta', 'io.modelcontextprotocol/logLevel'],
  ['body', 'params', '_meta', 'progressToken'], ['body', 'params', '_meta', 'traceparent'],
  ['headers', 'mcp-protocol-version'], ['headers', 'mcp-method'], ['headers', 'mcp-name']
]

function mutate (request: { body: Record<string, unknown>, headers: Record<string, unknown> }, path: string[], value: unknown): void {
  let at: Record<string, unknown> = request
  for (const key of path.slice(0, -1)) {
    const next = at[key]
    if (typeof next !== 'object' || next === null || Array.isArray(next)) return
    at = next as Record<string, unknown>
  }
  const last = path[path.length - 1]
  if (value === undefined) delete at[last]
  else at[last] = value
}

const requests = fc.tuple(
  fc.constantFrom('server/discover', 'tools/list', 'tools/call'),
  fc.array(fc.tuple(fc.constantFrom(...PATHS), odd), { maxLength: 3 })
).map(([method, mutations]) => {
  const request = valid(method)
  for (const [path, value] of mutations) mutate(request, path, structuredClone(value))
  return request
})

test('whatever the pre-screen takes, the SDK classifier and hotRequestOf route the same way', () => {
  let accepted = 0
  fc.assert(fc.property(requests, ({ body: b, headers: raw }) => {
    // Header values are strings or absent on the wire.
    const h = Object.fromEntries(Object.entries(raw).filter(([, value]) => typeof value === 'string')) as Record<string, string>
    const plain = plainHotRequest(h, b)
    if (plain === undefined) return
    accepted++
    const route = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: h['mcp-protocol-version'], mcpMethodHeader: h['mcp-method'], mcpNameHeader: h['mcp-name'], body: b })
    assert.equal(route.kind, 'modern', JSON.stringify({ b, h, route }))
    assert.ok(route.kind === 'modern' && route.messageKind === 'request')
    assert.equal(route.classification.revision, REVISION)
    const hot = hotRequestOf({ headers: h } as unknown as FastifyRequest, route.message, route.classification.revision)
    assert.deepEqual(hot, plain)
  }), { numRuns: 20_000 })
  assert.ok(accepted > 1_000, `the generator reached accepted requests (${accepted})`)
})

test('a tool name with white space at either end is left to the SDK (it strips the header\'s before comparing)', () => {
  const meta = { 'io.modelcontextprotocol/protocolVersion': REVISION, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' } }
  for (const name of [' echo', 'echo\t', ' ']) {
    const headers = { 'mcp-protocol-version': REVISION, 'mcp-method': 'tools/call', 'mcp-name': name }
    assert.equal(plainHotRequest(headers, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {}, _meta: meta } }), undefined, JSON.stringify(name))
  }
})

test('the requests SDK 2.4 clients send are taken', () => {
  const envelope = { 'io.modelcontextprotocol/protocolVersion': REVISION, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } }, 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' } }
  const headersOf = (m: string, name?: string) => ({ 'mcp-protocol-version': REVISION, 'mcp-method': m, ...(name === undefined ? {} : { 'mcp-name': name }) })
  assert.ok(plainHotRequest(headersOf('server/discover'), { jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: envelope } }))
  assert.ok(plainHotRequest(headersOf('tools/list'), { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } }))
  assert.ok(plainHotRequest(headersOf('tools/call', 'echo'), { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' }, _meta: { ...envelope, progressToken: 2 } } }))
})
