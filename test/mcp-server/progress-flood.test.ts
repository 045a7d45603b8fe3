// An upstream MCP server that floods its caller with progress notifications: the gateway passes
// them on to its own /mcp client at most a few a second per call, never one by one.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { TestMcpHttpServer } from '../mcp-client/helpers/http-server.ts'
import { until } from '../mcp-client/helpers/wait.ts'
import { startGatewayOf } from './helpers/gateways.ts'
import { PROGRESS_BURST, PROGRESS_INTERVAL_MS } from '../../src/dispatch/call/progress-coalescer.ts'

const REPORTS = 20_000

test('20 000 progress notifications of an upstream reach the /mcp client coalesced, the latest of each interval kept', async (t) => {
  let sent = 0
  const upstream = new TestMcpHttpServer({
    flood: {
      run: async (_args, ctx) => {
        const began = performance.now()
        for (let i = 1; i <= REPORTS; i++) {
          if (!await ctx.progress(i, REPORTS)) break
          sent = i
          // Spread over about a second, so that several intervals pass while the flood lasts.
          if (i % 2_000 === 0) await new Promise((resolve) => setTimeout(resolve, 100))
        }
        return { content: [{ type: 'text', text: `sent ${sent} in ${Math.round(performance.now() - began)} ms` }] }
      }
    }
  })
  await upstream.start()
  t.after(() => upstream.close())
  const gateway = await startGatewayOf(t, { up: { url: upstream.url, connectTimeoutMs: 10_000 } })
  await until(() => gateway.app.gateway.registry.getEntry('mcp__up__flood') !== undefined, 'mcp__up__flood listed', 10_000)

  const client = new Client({ name: 'progress-flood', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.base}/mcp`)))
  t.after(() => client.close())
  const received: Array<{ progress: number, total?: number }> = []
  const began = performance.now()
  const result = await client.callTool({ name: 'mcp__up__flood', arguments: {} }, {
    onprogress: (update) => { received.push(update) },
    timeout: 60_000
  })
  const elapsedMs = performance.now() - began
  assert.equal(result.isError, false, JSON.stringify(result))
  assert.equal(sent, REPORTS, 'the upstream sent every report (the gateway asked for progress)')
  // The burst, then at most one per interval while the call lasted, and the last before the answer.
  const allowed = PROGRESS_BURST + 2 + Math.ceil(elapsedMs / PROGRESS_INTERVAL_MS)
  assert.ok(received.length >= 2, `some progress reached the client: ${received.length}`)
  assert.ok(received.length <= allowed, `${received.length} notifications for ${REPORTS} reports in ${Math.round(elapsedMs)} ms (at most ${allowed})`)
  const values = received.map((update) => update.progress)
  assert.deepEqual(values, [...values].sort((a, b) => a - b), 'in order')
  assert.equal(values[0], 1, 'the first report goes out at once')
  assert.equal(values.at(-1), REPORTS, 'the later reports replace the earlier ones, and the last goes out before the answer')
  assert.ok(received.every((update) => update.total === REPORTS))
})
