// A cut result over MCP: _meta names where the rest is kept, the model reads on with read_result,
// and on an open gateway the same caller (`anonymous`) reads it over REST too.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

const TEXT = Array.from({ length: 5000 }, (_, i) => `row ${i}\n`).join('')

test('tools/call of a cut result: resultId in _meta, the notice names read_result, which reads the rest', async (t) => {
  const { app } = await buildTestApp(t, { TOOLS_DIR: join(import.meta.dirname, '../../tools/results') })
  app.gateway.registry.register(fixtureTool('big', { maxResultSizeChars: 2000, handler: async () => TEXT }))
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  const client = new Client({ name: 'test', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${address}/mcp`)))
  t.after(() => client.close())

  const cut = await client.callTool({ name: 'big', arguments: {} })
  const outcome = cut._meta?.['tool-gateway/outcome'] as { truncated: boolean, originalLength: number, resultId: string }
  assert.equal(outcome.truncated, true)
  assert.equal(outcome.originalLength, TEXT.length)
  assert.match(outcome.resultId, /^res_[\w-]{24}$/)
  const text = (cut.content as Array<{ text: string }>)[0].text
  const offset = Number(new RegExp(`call read_result with \\{"id": "${outcome.resultId}", "offset": (\\d+)\\}`).exec(text)?.[1])
  assert.ok(text.startsWith(TEXT.slice(0, offset)), 'the offset is where the head ends')

  const read = await client.callTool({ name: 'read_result', arguments: { id: outcome.resultId, offset, limit: 50 } })
  assert.equal(read.isError, false)
  assert.deepEqual(JSON.parse((read.content as Array<{ text: string }>)[0].text), {
    id: outcome.resultId, offset, content: TEXT.slice(offset, offset + 50), totalLength: TEXT.length, nextOffset: offset + 50
  })
  // Open gateway: the MCP client and a REST caller are the same `anonymous`.
  const rest = await app.inject(`/results/${outcome.resultId}?offset=${offset}&limit=50`)
  assert.equal(rest.json().content, TEXT.slice(offset, offset + 50))
  // A result that fits carries no _meta at all: nothing in it a client needs.
  app.gateway.registry.register(fixtureTool('small', { handler: async () => 'ok' }))
  const small = await client.callTool({ name: 'small', arguments: {} })
  assert.equal(small._meta, undefined)
})
