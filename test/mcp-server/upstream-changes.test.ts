// An upstream MCP server changes its tool list while clients listen on the gateway: a 2026-07-28
// client on subscriptions/listen and a 2025-11-25 client in a session (its GET stream) are both told,
// and both list and call the new tool through the gateway. Upstreams of each era: one that speaks
// only 2026-07-28 (the SDK's createMcpHandler, legacy: 'reject') and one that speaks only 2025
// (the SDK's legacy transport; server-everything, listed and called in test/mcp/legacy-upstream.test.ts,
// has no way to change its tool list on request).
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { ModernMcpHttpServer } from '../mcp-client/helpers/modern-http-server.ts'
import { TestMcpHttpServer, type TestTool } from '../mcp-client/helpers/http-server.ts'
import { until } from '../mcp-client/helpers/wait.ts'
import { startGatewayOf } from './helpers/gateways.ts'

const first: TestTool = { description: 'There from the start', run: () => ({ content: [{ type: 'text', text: 'first' }] }) }
const added: TestTool = { description: 'Added while clients listen', run: () => ({ content: [{ type: 'text', text: 'added' }] }) }

interface Listener { client: Client, changes: () => number }

async function listener (t: TestContext, url: string, modern: boolean): Promise<Listener> {
  const client = new Client({ name: modern ? 'modern-listener' : 'legacy-listener', version: '1' }, { versionNegotiation: { mode: modern ? { pin: '2026-07-28' } : 'legacy' } })
  let changes = 0
  client.setNotificationHandler('notifications/tools/list_changed', () => { changes++ })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  t.after(() => client.close())
  // 2026-07-28 asks for the notifications on a listen stream; a 2025 session gets them on its GET stream.
  if (modern) await client.listen({ toolsListChanged: true })
  return { client, changes: () => changes }
}

for (const era of ['2026-07-28 only', '2025 only'] as const) {
  test(`an upstream speaking ${era} adds a tool: listening clients of both revisions are told, list it and call it`, async (t) => {
    const upstream = era === '2026-07-28 only' ? new ModernMcpHttpServer({ first }) : new TestMcpHttpServer({ first })
    await upstream.start()
    t.after(() => upstream.close())
    const gateway = await startGatewayOf(t, { up: { url: upstream.url, connectTimeoutMs: 10_000 } })
    await until(() => gateway.app.gateway.registry.getEntry('mcp__up__first') !== undefined, 'mcp__up__first on the gateway', 10_000)
    const listeners = [await listener(t, `${gateway.base}/mcp`, true), await listener(t, `${gateway.base}/mcp`, false)]
    // The 2025 client opens its GET stream in the background: wait until it is counted open.
    await new Promise((resolve) => setTimeout(resolve, 300))
    for (const { client } of listeners) assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ['mcp__up__first'])

    upstream.addTool('added', added)
    for (const [i, { client, changes }] of listeners.entries()) {
      await until(() => changes() > 0, `${i === 0 ? '2026-07-28' : '2025-11-25'} client told of the change`, 10_000)
      assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ['mcp__up__added', 'mcp__up__first'])
      const result = await client.callTool({ name: 'mcp__up__added', arguments: {} })
      assert.deepEqual(result.content, [{ type: 'text', text: 'added' }])
    }
  })
}
