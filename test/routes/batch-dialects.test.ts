// POST /dispatch in every dialect, over real HTTP: Responses function_call items, Anthropic tool_use
// blocks and Gemini functionCall parts, each answered in kind. The answers' static types (from the
// route's own schemas) are assigned to the SDKs' input types for the next turn, so tsc checks that
// what the gateway answers is what each SDK takes; the values are checked at run time.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type Anthropic from '@anthropic-ai/sdk'
import type { Content, Part } from '@google/genai'
import type OpenAI from 'openai'
import type { Static } from 'typebox'
import type { AnthropicAnswer } from '../../src/dispatch/dialects/anthropic.ts'
import type { GeminiAnswer } from '../../src/dispatch/dialects/gemini.ts'
import type { ResponsesAnswer } from '../../src/dispatch/dialects/responses.ts'
import { toolResult } from '../../src/registry/tool-result.ts'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

interface Envelopes { results: Array<{ status: string, callId: string, ok: boolean }> }

/** A gateway on a loopback port with an `echo` tool (text: string) and a `fail` tool that throws. */
async function serve (t: TestContext, env: Record<string, string> = {}, builtins = false): Promise<(body: unknown) => Promise<Response>> {
  const { app } = await buildTestApp(t, env, { builtins })
  app.gateway.registry.register(fixtureTool('echo'))
  app.gateway.registry.register(fixtureTool('fail', { handler: async () => { throw new Error('it broke') } }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  return async (body) => await fetch(`http://127.0.0.1:${port}/dispatch`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body)
  })
}

test('Responses function_call items are answered by function_call_output items, in order', async (t) => {
  const dispatch = await serve(t)
  // A response's output as the SDK gives it: a reasoning item and a message are left alone.
  const output: OpenAI.Responses.ResponseOutputItem[] = [
    { type: 'reasoning', id: 'rs_1', summary: [] },
    { type: 'function_call', id: 'fc_1', call_id: 'call_a', name: 'echo', arguments: '{"text": "hi"}' },
    { type: 'function_call', id: 'fc_2', call_id: 'call_b', name: 'missing', arguments: '{}' },
    { type: 'function_call', id: 'fc_3', call_id: 'call_c', name: 'fail', arguments: '{}' }
  ]
  const res = await dispatch({ output })
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type') ?? '', /application\/json/)
  const answer = await res.json() as Static<typeof ResponsesAnswer> & Envelopes
  // The next request's input: the conversation so far plus the answers.
  const input: OpenAI.Responses.ResponseInputItem[] = [...answer.items]
  assert.deepEqual(input.map((item) => 'call_id' in item && item.call_id), ['call_a', 'call_b', 'call_c'])
  assert.deepEqual(answer.items[0], { type: 'function_call_output', call_id: 'call_a', output: '{"echoed":"hi"}' })
  assert.equal(answer.items[1].output, '{"error":"Unknown tool: missing"}')
  assert.match(String(answer.items[2].output), /it broke/)
  assert.deepEqual(answer.results.map((r) => r.status), ['ok', 'not_found', 'error'])
  assert.deepEqual(answer.results.map((r) => r.callId), ['call_a', 'call_b', 'call_c'])
})

test('a whole Responses request runs only the calls its input does not answer yet, and a bare array works', async (t) => {
  const dispatch = await serve(t)
  const input: OpenAI.Responses.ResponseInputItem[] = [
    { role: 'user', content: 'say hi twice' },
    { type: 'function_call', call_id: 'call_old', name: 'fail', arguments: '{}' },
    { type: 'function_call_output', call_id: 'call_old', output: '{"error":"it broke"}' },
    { type: 'function_call', call_id: 'call_new', name: 'echo', arguments: '{"text": "again"}' }
  ]
  const whole = await (await dispatch({ model: 'gpt-5', input, parallel_tool_calls: false })).json() as Static<typeof ResponsesAnswer> & Envelopes
  assert.deepEqual(whole.items, [{ type: 'function_call_output', call_id: 'call_new', output: '{"echoed":"again"}' }])
  const bare = await (await dispatch([input[3]])).json() as Static<typeof ResponsesAnswer>
  assert.deepEqual(bare.items, whole.items)
})

test('Anthropic tool_use blocks are answered by tool_result blocks with is_error', async (t) => {
  const dispatch = await serve(t)
  const message: Anthropic.Messages.MessageParam = {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_1', name: 'echo', input: { text: 'hi' } },
      { type: 'tool_use', id: 'toolu_2', name: 'echo', input: { text: 42 } },
      { type: 'tool_use', id: 'toolu_3', name: 'fail', input: {} }
    ]
  }
  const res = await dispatch(message)
  assert.equal(res.status, 200)
  const answer = await res.json() as Static<typeof AnthropicAnswer> & Envelopes
  const blocks: Anthropic.Messages.ToolResultBlockParam[] = answer.content
  const next: Anthropic.Messages.MessageParam = { role: 'user', content: blocks }
  assert.equal(next.content.length, 3)
  assert.deepEqual(blocks[0], { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"echoed":"hi"}', is_error: false })
  // Invalid arguments fail that call alone, answered in kind.
  assert.deepEqual(blocks[1], { type: 'tool_result', tool_use_id: 'toolu_2', content: '{"error":"invalid arguments: /text: must be string (tool echo)"}', is_error: true })
  assert.equal(blocks[2].tool_use_id, 'toolu_3')
  assert.equal(blocks[2].is_error, true)
  assert.match(String(blocks[2].content), /it broke/)
  // The content array alone is accepted too.
  const bare = await (await dispatch(message.content)).json() as Static<typeof AnthropicAnswer>
  assert.deepEqual(bare.content[0], blocks[0])
})

test('Gemini functionCall parts are answered by functionResponse parts, {output} or {error}', async (t) => {
  const dispatch = await serve(t)
  const content: Content = {
    role: 'model',
    parts: [
      { text: 'Calling tools.' },
      { functionCall: { id: 'fc-1', name: 'echo', args: { text: 'hi' } } },
      { functionCall: { name: 'missing', args: {} } },
      { functionCall: { name: 'fail' } }
    ]
  }
  const res = await dispatch(content)
  assert.equal(res.status, 200)
  const answer = await res.json() as Static<typeof GeminiAnswer> & Envelopes
  const parts: Part[] = answer.parts
  const next: Content = { role: 'user', parts }
  assert.equal(next.parts?.length, 3)
  assert.deepEqual(parts[0], { functionResponse: { id: 'fc-1', name: 'echo', response: { output: '{"echoed":"hi"}' } } })
  // No id in the call, none in the answer: Gemini matches those by name and order.
  assert.deepEqual(parts[1], { functionResponse: { name: 'missing', response: { error: 'Unknown tool: missing' } } })
  assert.equal(parts[2].functionResponse?.name, 'fail')
  assert.match(String(parts[2].functionResponse?.response?.error), /it broke/)
  assert.deepEqual(answer.results.map((r) => r.status), ['ok', 'not_found', 'error'])
  const bare = await (await dispatch(content.parts)).json() as Static<typeof GeminiAnswer>
  assert.deepEqual(bare.parts[0], parts[0])
})

test('a body mixing dialects, or matching none, is a 400 naming every accepted shape', async (t) => {
  const dispatch = await serve(t)
  const shapes = [/tool_calls/, /function_call/, /tool_use/, /functionCall/]
  const mixed = await dispatch([
    { type: 'function_call', call_id: 'a', name: 'echo', arguments: '{}' },
    { type: 'tool_use', id: 'b', name: 'echo', input: {} }
  ])
  assert.equal(mixed.status, 400)
  const mixedMessage = ((await mixed.json()) as { error: { message: string } }).error.message
  assert.match(mixedMessage, /mixes tool calls of responses and anthropic/)
  for (const shape of shapes) assert.match(mixedMessage, shape)
  for (const body of [{ calls: [] }, [], [{ type: 'text', text: 'no calls' }], 'tool_calls', { role: 'assistant', content: 'just text' }]) {
    const res = await dispatch(body)
    assert.equal(res.status, 400, JSON.stringify(body))
    const envelope = await res.json() as { ok: boolean, error: { code: string, message: string } }
    assert.equal(envelope.ok, false)
    assert.equal(envelope.error.code, 'GW_ERR_BAD_REQUEST')
    for (const shape of shapes) assert.match(envelope.error.message, shape)
  }
})

test('a malformed call is a 400 naming where it is; a bad parallel flag is refused', async (t) => {
  const dispatch = await serve(t)
  const noId = await dispatch({ output: [{ type: 'text' }, { type: 'function_call', name: 'echo', arguments: '{}' }] })
  assert.equal(noId.status, 400)
  assert.match(((await noId.json()) as { error: { message: string } }).error.message, /^output\[1\]: must have required property 'call_id'/)
  const badInput = await dispatch({ role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'echo', input: 'text' }] })
  assert.match(((await badInput.json()) as { error: { message: string } }).error.message, /^content\[0\]\/input: must be object/)
  const badFlag = await dispatch({ parallel: 'no', tool_calls: [{ id: 'c', function: { name: 'echo' } }] })
  assert.equal(badFlag.status, 400)
  assert.match(((await badFlag.json()) as { error: { message: string } }).error.message, /parallel must be true or false/)
})

test('parallel: false runs the calls one after another, in input order, in every dialect', async (t) => {
  const { app } = await buildTestApp(t, { BATCH_CONCURRENCY: '8' })
  let running = 0
  let peak = 0
  const started: string[] = []
  app.gateway.registry.register(fixtureTool('step', {
    handler: async (args) => {
      started.push(String(args.text))
      running++
      peak = Math.max(peak, running)
      await new Promise((resolve) => setTimeout(resolve, 5))
      running--
      return toolResult({ done: args.text })
    }
  }))
  const bodies = [
    { parallel: false, tool_calls: ['1', '2', '3', '4'].map((text) => ({ id: text, function: { name: 'step', arguments: { text } } })) },
    { parallel_tool_calls: false, output: ['1', '2', '3', '4'].map((text) => ({ type: 'function_call', call_id: text, name: 'step', arguments: JSON.stringify({ text }) })) },
    { parallel: false, content: ['1', '2', '3', '4'].map((text) => ({ type: 'tool_use', id: text, name: 'step', input: { text } })) },
    { parallel: false, parts: ['1', '2', '3', '4'].map((text) => ({ functionCall: { name: 'step', args: { text } } })) }
  ]
  for (const payload of bodies) {
    started.length = 0
    peak = 0
    const res = await app.inject({ method: 'POST', url: '/dispatch', payload })
    assert.equal(res.statusCode, 200)
    assert.equal(peak, 1, `one call at a time: ${JSON.stringify(payload).slice(0, 60)}`)
    assert.deepEqual(started, ['1', '2', '3', '4'])
  }
  // Without the flag the same batch runs concurrently.
  peak = 0
  await app.inject({ method: 'POST', url: '/dispatch', payload: { parts: bodies[3].parts } })
  assert.equal(peak, 4)
})

test('with parallel: false, a read_file after the write_file it depends on sees the write, 10 times out of 10', async (t) => {
  const dispatch = await serve(t, {}, true)
  for (let i = 0; i < 10; i++) {
    const text = `trial ${i} ${'x'.repeat(20_000)}`
    const res = await dispatch({
      parallel: false,
      role: 'assistant',
      content: [
        { type: 'tool_use', id: `w${i}`, name: 'write_file', input: { path: `seq/${i}.txt`, content: text } },
        { type: 'tool_use', id: `r${i}`, name: 'read_file', input: { path: `seq/${i}.txt` } }
      ]
    })
    const answer = await res.json() as Static<typeof AnthropicAnswer>
    assert.equal(answer.content[1].is_error, false, String(answer.content[1].content))
    assert.match(String(answer.content[1].content), new RegExp(`trial ${i} x`))
  }
})

test('batch headers are still checked against the route schema', async (t) => {
  const { app } = await buildTestApp(t)
  app.gateway.registry.register(fixtureTool('echo'))
  const res = await app.inject({ method: 'POST', url: '/dispatch', headers: { 'x-tool-timeout-ms': 'soon' }, payload: { parts: [{ functionCall: { name: 'echo' } }] } })
  assert.equal(res.statusCode, 400)
  // The route's schema check (not the call's own reading of the header) refuses it.
  assert.match(res.json().error.message, /headers\/x-tool-timeout-ms must match pattern/)
  const long = await app.inject({ method: 'POST', url: '/dispatch', headers: { 'x-session-id': 'x'.repeat(300) }, payload: { parts: [{ functionCall: { name: 'echo' } }] } })
  assert.equal(long.statusCode, 400)
  assert.match(long.json().error.message, /headers\/x-session-id must NOT have more than 256 characters/)
})
