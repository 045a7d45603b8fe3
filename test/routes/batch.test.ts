// POST /dispatch: tool_calls in, tool messages out, in input order, concurrency bounded, no call lost.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { toolResult } from '../../src/registry/tool-result.ts'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

test('every call gets its message in input order; failures stay per call', async (t) => {
  const { app } = await buildTestApp(t)
  app.gateway.registry.register(fixtureTool('wait', {
    schema: { parameters: { type: 'object', properties: { ms: { type: 'integer' }, tag: { type: 'string' } } } },
    handler: async (args) => {
      await new Promise((resolve) => setTimeout(resolve, args.ms as number))
      return toolResult({ tag: args.tag })
    }
  }))
  const res = await app.inject({
    method: 'POST',
    url: '/dispatch',
    payload: {
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'wait', arguments: '{"ms": 40, "tag": "first"}' } },
        { id: 'c2', type: 'function', function: { name: 'missing', arguments: '{}' } },
        { id: 'c3', type: 'function', function: { name: 'wait', arguments: '{"ms": "bad"}' } },
        { id: 'c4', type: 'function', function: { name: 'wait', arguments: '{not json' } },
        { id: 'c5', type: 'function', function: { name: 'wait', arguments: { ms: 1, tag: 'object args' } } }
      ]
    }
  })
  assert.equal(res.statusCode, 200)
  const body = res.json()
  assert.deepEqual(body.messages.map((m: { tool_call_id: string }) => m.tool_call_id), ['c1', 'c2', 'c3', 'c4', 'c5'])
  assert.ok(body.messages.every((m: { role: string }) => m.role === 'tool'))
  assert.deepEqual(JSON.parse(body.messages[0].content), { tag: 'first' })
  assert.equal(body.messages[1].content, '{"error":"Unknown tool: missing"}')
  assert.match(body.messages[2].content, /\/ms: must be integer/)
  assert.match(body.messages[3].content, /not valid JSON/)
  assert.deepEqual(JSON.parse(body.messages[4].content), { tag: 'object args' })
  assert.deepEqual(body.results.map((r: { status: string }) => r.status), ['ok', 'not_found', 'invalid', 'invalid', 'ok'])
  assert.deepEqual(body.results.map((r: { callId: string }) => r.callId), ['c1', 'c2', 'c3', 'c4', 'c5'])
  assert.equal('httpStatus' in body.results[0], false, 'internal fields stay internal')
})

test('calls run concurrently up to the configured limit', async (t) => {
  const { app } = await buildTestApp(t, { BATCH_CONCURRENCY: '3' })
  let running = 0
  let peak = 0
  app.gateway.registry.register(fixtureTool('count', {
    handler: async () => {
      running++
      peak = Math.max(peak, running)
      await new Promise((resolve) => setTimeout(resolve, 20))
      running--
      return '{}'
    }
  }))
  const toolCalls = Array.from({ length: 10 }, (_, i) => ({ id: `c${i}`, type: 'function', function: { name: 'count', arguments: '{}' } }))
  const res = await app.inject({ method: 'POST', url: '/dispatch', payload: { tool_calls: toolCalls } })
  assert.equal(res.statusCode, 200)
  assert.equal(res.json().messages.length, 10)
  assert.equal(peak, 3)
})

test('a batch over the size limit or empty is refused as a whole with a clear message', async (t) => {
  const { app } = await buildTestApp(t)
  const empty = await app.inject({ method: 'POST', url: '/dispatch', payload: { tool_calls: [] } })
  assert.equal(empty.statusCode, 400)
  const toolCalls = Array.from({ length: 129 }, (_, i) => ({ id: `c${i}`, type: 'function', function: { name: 'x', arguments: '{}' } }))
  const big = await app.inject({ method: 'POST', url: '/dispatch', payload: { tool_calls: toolCalls } })
  assert.equal(big.statusCode, 400)
  assert.match(big.json().error.message, /at most 128 tool calls \(got 129\)/)
})

test('the per-call headers of a batch apply to each of its calls; a bad one refuses the batch before any call runs', async (t) => {
  const { app } = await buildTestApp(t)
  const sessions: Array<string | undefined> = []
  app.gateway.registry.register(fixtureTool('whoami', {
    handler: async (_args, ctx) => {
      sessions.push(ctx.sessionId)
      return toolResult({ padding: 'x'.repeat(200) })
    }
  }))
  const toolCalls = ['c1', 'c2', 'c3'].map((id) => ({ id, type: 'function', function: { name: 'whoami', arguments: '{}' } }))
  const res = await app.inject({
    method: 'POST',
    url: '/dispatch',
    headers: { 'x-session-id': 'agent-7', 'x-max-result-chars': '100' },
    payload: { tool_calls: toolCalls }
  })
  assert.equal(res.statusCode, 200)
  const results = res.json().results as Array<{ truncated: boolean }>
  assert.equal(results.length, 3)
  assert.deepEqual(results.map((result) => result.truncated), [true, true, true], 'x-max-result-chars caps every call')
  assert.deepEqual(sessions, ['agent-7', 'agent-7', 'agent-7'])
  const bad = await app.inject({ method: 'POST', url: '/dispatch', headers: { 'x-tool-timeout-ms': 'soon' }, payload: { tool_calls: toolCalls } })
  assert.equal(bad.statusCode, 400)
  assert.match(bad.json().error.message, /x-tool-timeout-ms/)
  assert.equal(sessions.length, 3, 'no call of a refused batch runs')
})
