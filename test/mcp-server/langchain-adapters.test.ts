// LangChain's MCP adapters against the gateway's /mcp, for real: a plain successful call must come
// back as the plain text (any `_meta` makes the adapters return an object, which ChatOpenAI then
// sends double-encoded); a cut result still carries where the rest is kept.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { MultiServerMCPClient } from '@langchain/mcp-adapters'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

test('LangChain MCP adapters: a plain call returns a string; a cut one returns the text with the kept result in meta', async (t) => {
  const { app } = await buildTestApp(t, { TOOLS_DIR: join(import.meta.dirname, '../../tools/results') })
  app.gateway.registry.register(fixtureTool('plain', { handler: async () => 'hello from the gateway' }))
  app.gateway.registry.register(fixtureTool('big', { maxResultSizeChars: 2000, handler: async () => 'y'.repeat(10_000) }))
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  const client = new MultiServerMCPClient({ mcpServers: { gateway: { transport: 'http', url: `${address}/mcp` } } })
  t.after(() => client.close())
  const tools = Object.fromEntries((await client.getTools()).map((tool) => [tool.name, tool]))

  const plain: unknown = await tools.plain.invoke({ text: 'x' })
  assert.equal(plain, 'hello from the gateway')

  const cut = await tools.big.invoke({}) as { text: string, meta: Record<string, { truncated: boolean, resultId: string }> }
  assert.equal(typeof cut, 'object')
  assert.match(cut.text, /truncated/)
  assert.equal(cut.meta['tool-gateway/outcome'].truncated, true)
  assert.match(cut.meta['tool-gateway/outcome'].resultId, /^res_/)
})
