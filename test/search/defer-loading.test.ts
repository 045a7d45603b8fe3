// Anthropic's tool search with the gateway's own search_tools: definitions with every other tool
// deferred (defer_loading), and search_tools answers that name what they found as tool_reference
// blocks, which is how Anthropic loads a deferred tool. Both checked against the SDK's types.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type Anthropic from '@anthropic-ai/sdk'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

async function gateway (t: Parameters<typeof buildTestApp>[0], searchTool = true) {
  const { app } = await buildTestApp(t, searchTool ? { SEARCH_TOOL: 'true' } : {})
  app.gateway.registry.register(fixtureTool('take_screenshot', { toolset: 'shots', description: 'Capture an image of the current web page' }))
  app.gateway.registry.register(fixtureTool('create_issue', { toolset: 'tracker', description: 'Open an issue in the bug tracker' }))
  return app
}

test('format=anthropic&defer_loading=true defers every tool but search_tools', async (t) => {
  const app = await gateway(t)
  const answer = await app.inject('/definitions?format=anthropic&defer_loading=true')
  assert.equal(answer.statusCode, 200, answer.body)
  const tools: Anthropic.Messages.Tool[] = JSON.parse(answer.body)
  assert.deepEqual(tools.map((tool) => [tool.name, tool.defer_loading ?? false]), [
    ['create_issue', true], ['search_tools', false], ['take_screenshot', true]
  ])
  const plain = await app.inject('/definitions?format=anthropic')
  assert.ok((JSON.parse(plain.body) as Anthropic.Messages.Tool[]).every((tool) => tool.defer_loading === undefined))
  assert.notEqual(plain.headers.etag, answer.headers.etag)
})

test('defer_loading=true is refused where it could not work: another format, no search_tools in the answer', async (t) => {
  const app = await gateway(t)
  const chat = await app.inject('/definitions?defer_loading=true')
  assert.equal(chat.statusCode, 400)
  assert.match(chat.json().message, /format=anthropic only/)
  const bad = await app.inject('/definitions?format=anthropic&defer_loading=yes')
  assert.match(bad.json().message, /defer_loading must be true or false/)
  const narrowed = await app.inject('/definitions?format=anthropic&defer_loading=true&toolsets=shots')
  assert.equal(narrowed.statusCode, 400)
  assert.match(narrowed.json().message, /needs search_tools in the answer.*SEARCH_TOOL=true.*discovery/)
  const without = await gateway(t, false)
  assert.equal((await without.inject('/definitions?format=anthropic&defer_loading=true')).statusCode, 400)
})

test('an Anthropic batch with tool_references: true gets the found tools as tool_reference blocks', async (t) => {
  const app = await gateway(t)
  const body = { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'search_tools', input: { query: 'take a screenshot of the page', limit: 1 } }] }
  const referenced = await app.inject({ method: 'POST', url: '/dispatch', payload: { ...body, tool_references: true } })
  assert.equal(referenced.statusCode, 200, referenced.body)
  const [result]: Anthropic.Messages.ToolResultBlockParam[] = referenced.json().content
  assert.ok(Array.isArray(result.content))
  assert.equal(result.content[0].type, 'text')
  assert.deepEqual(result.content.slice(1), [{ type: 'tool_reference', tool_name: 'take_screenshot' }])
  // Without the flag the answer stays a string: a reference to a tool the request does not define is an error.
  const plain = await app.inject({ method: 'POST', url: '/dispatch', payload: body })
  assert.equal(typeof plain.json().content[0].content, 'string')
  // Other tools never get references.
  const other = await app.inject({ method: 'POST', url: '/dispatch', payload: { content: [{ type: 'tool_use', id: 'toolu_2', name: 'create_issue', input: {} }], tool_references: true } })
  assert.equal(typeof other.json().content[0].content, 'string')
  const chat = await app.inject({ method: 'POST', url: '/dispatch', payload: { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'create_issue', arguments: '{}' } }], tool_references: true } })
  assert.equal(chat.statusCode, 400)
  assert.match(chat.json().error.message, /tool_references applies to Anthropic bodies only/)
})
