// Issue 25 item 7: odd values of the call headers (-1, NaN, 1e20, fractions, two values) are
// refused naming the header, over REST and over /mcp, instead of being taken silently.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

const ODD = ['-1', 'NaN', '1e20', '1.5', 'Infinity', '0x10', '', '9999999999999999']

test('REST: each odd X-Tool-Timeout-Ms / X-Max-Result-Chars value is a 400 naming the header; the tool never runs', async (t) => {
  const { app } = await buildTestApp(t)
  let ran = 0
  app.gateway.registry.register(fixtureTool('echo', { handler: async () => { ran++; return 'ok' } }))
  for (const header of ['x-tool-timeout-ms', 'x-max-result-chars']) {
    for (const value of ODD) {
      const res = await app.inject({ method: 'POST', url: '/dispatch/echo', payload: {}, headers: { [header]: value } })
      assert.equal(res.statusCode, 400, `${header}: ${JSON.stringify(value)} → ${res.statusCode}`)
      assert.match(res.body, new RegExp(header), `${header}: ${JSON.stringify(value)} named`)
    }
  }
  assert.equal(ran, 0)
  const fine = await app.inject({ method: 'POST', url: '/dispatch/echo', payload: {}, headers: { 'x-tool-timeout-ms': '5000', 'x-max-result-chars': '100' } })
  assert.equal(fine.statusCode, 200)
})

test('/mcp: an odd X-Tool-Timeout-Ms is refused naming the header', async (t) => {
  const { app } = await buildTestApp(t)
  app.gateway.registry.register(fixtureTool('echo'))
  for (const value of ['-1', 'NaN', '1e20']) {
    const res = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-tool-timeout-ms': value },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } }
    })
    assert.equal(res.statusCode, 400, `${JSON.stringify(value)} → ${res.statusCode} ${res.body.slice(0, 200)}`)
    assert.match(res.body, /x-tool-timeout-ms/)
  }
})

test('__proto__ and constructor.prototype keys are refused wherever arguments come in: a JSON string, a nested JSON string, a batch', async (t) => {
  const { app } = await buildTestApp(t)
  let ran = 0
  app.gateway.registry.register(fixtureTool('obj', {
    schema: { parameters: { type: 'object', properties: { o: { type: 'object' } } } },
    handler: async () => { ran++; return 'ok' }
  }))
  const single = await app.inject({ method: 'POST', url: '/dispatch', payload: { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'obj', arguments: '{"__proto__": {"admin": true}}' } }] } })
  assert.match(single.json().messages[0].content, /__proto__.{1,4} or .{1,4}constructor.prototype.{1,4} key is not accepted/)
  const ctor = await app.inject({ method: 'POST', url: '/dispatch', payload: { tool_calls: [{ id: 'c2', type: 'function', function: { name: 'obj', arguments: '{"constructor": {"prototype": {"admin": true}}}' } }] } })
  assert.match(ctor.json().messages[0].content, /not accepted/)
  const nested = await app.inject({ method: 'POST', url: '/dispatch/obj', payload: { o: '{"__proto__": {"admin": true}}' } })
  assert.equal(nested.statusCode, 400)
  assert.match(nested.json().error.message, /\/o: must be object/)
  const body = await app.inject({ method: 'POST', url: '/dispatch/obj', payload: '{"o": {"__proto__": {"admin": true}}}', headers: { 'content-type': 'application/json' } })
  assert.equal(body.statusCode, 400)
  assert.equal(ran, 0)
  assert.equal(({} as Record<string, unknown>).admin, undefined)
})
