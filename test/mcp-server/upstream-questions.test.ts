// Questions passed through, end to end: an upstream MCP server's tool asks (a 2026-07-28-only
// server returning input_required; a 2025-11-25 server sending elicitation/create on the call's
// stream), and the question reaches whoever called the gateway, in that caller's own protocol: the
// SDK 2.4 client over /mcp in both revisions (its elicitation handler answers; in 2026-07-28 its
// multi-round-trip driver retries), and a REST caller (input_required, then X-Request-State). The
// answer goes back up to the upstream, whose result comes down.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { inputRequired, inputResponse } from '@modelcontextprotocol/server'
import { AskingHttpServer } from '../mcp-client/helpers/asking-servers.ts'
import { buildTestApp } from '../helpers/app.ts'
import { REVISION } from './helpers/modern.ts'

const CONFIRM = { type: 'object' as const, properties: { ok: { type: 'boolean' as const } }, required: ['ok'] }

async function upstreams (t: TestContext) {
  const modern = new AskingHttpServer('modern', {
    deploy: {
      inputSchema: { type: 'object', properties: { target: { type: 'string' } } },
      run: ({ target }, ctx) => {
        const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm')
        if (answer.kind !== 'elicit') return inputRequired({ inputRequests: { confirm: inputRequired.elicit({ message: `Deploy to ${String(target)}?`, requestedSchema: CONFIRM }) }, requestState: 'upstream-state' })
        return { content: [{ type: 'text', text: `modern upstream told ${JSON.stringify({ action: answer.action, content: answer.content })}` }] }
      }
    }
  })
  const legacy = new AskingHttpServer('legacy', {
    confirm: {
      inputSchema: { type: 'object', properties: { target: { type: 'string' } } },
      run: async ({ target }, ctx) => {
        const answer = await ctx.mcpReq.elicitInput({ message: `Release ${String(target)}?`, requestedSchema: CONFIRM as never }, { relatedRequestId: ctx.mcpReq.id })
        return { content: [{ type: 'text', text: `legacy upstream told ${JSON.stringify(answer)}` }] }
      }
    }
  })
  await modern.start()
  await legacy.start()
  t.after(async () => {
    await modern.close()
    await legacy.close()
  })
  const dir = await mkdtemp(join(tmpdir(), 'upstream-questions-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'gw.yaml')
  await writeFile(file, [
    'mcpServers:',
    '  modern:',
    `    url: ${modern.url}`,
    '    protocol: "2026-07-28"',
    '  legacy:',
    `    url: ${legacy.url}`,
    '    protocol: "2025-11-25"',
    ''
  ].join('\n'))
  const { app } = await buildTestApp(t, { GATEWAY_CONFIG: file })
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  return { app, modern, legacy, url: new URL(`${address}/mcp`) }
}

function textOf (result: unknown): string {
  return (result as { content: Array<{ text?: string }> }).content[0]?.text ?? ''
}

for (const revision of [REVISION, '2025-11-25']) {
  test(`${revision}: the SDK client answers the questions of a 2026-07-28 upstream and of a 2025 upstream, through the gateway`, async (t) => {
    const { url } = await upstreams(t)
    const asked: string[] = []
    const client = new Client({ name: 'pass-through', version: '1' }, {
      versionNegotiation: { mode: revision === REVISION ? { pin: revision } : 'legacy' },
      capabilities: { elicitation: { form: {} } }
    })
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message: string }).message)
      return { action: 'accept', content: { ok: true } }
    })
    await client.connect(new StreamableHTTPClientTransport(url))
    t.after(() => client.close())
    assert.equal(textOf(await client.callTool({ name: 'mcp__modern__deploy', arguments: { target: 'prod' } })), 'modern upstream told {"action":"accept","content":{"ok":true}}')
    assert.equal(textOf(await client.callTool({ name: 'mcp__legacy__confirm', arguments: { target: 'v2' } })), 'legacy upstream told {"action":"accept","content":{"ok":true}}')
    assert.deepEqual(asked, ['Deploy to prod?', 'Release v2?'])
  })
}

test('REST: an upstream\'s question is the envelope input_required; the answers sent with X-Request-State reach the upstream', async (t) => {
  const { app, modern } = await upstreams(t)
  for (const [tool, message, told] of [['mcp__modern__deploy', 'Deploy to prod?', 'modern upstream told'], ['mcp__legacy__confirm', 'Release prod?', 'legacy upstream told']] as const) {
    const first = await app.inject({ method: 'POST', url: `/dispatch/${tool}`, payload: { target: 'prod' } })
    assert.equal(first.json().status, 'input_required', first.body)
    const questions = first.json().inputRequests as Record<string, { method: string, params: { message: string } }>
    const [key, question] = Object.entries(questions)[0]!
    assert.equal(question.method, 'elicitation/create')
    assert.equal(question.params.message, message)
    const retry = await app.inject({
      method: 'POST',
      url: `/dispatch/${tool}`,
      headers: { 'x-request-state': first.json().requestState },
      payload: { inputResponses: { [key]: { action: 'accept', content: { ok: false } } } }
    })
    assert.equal(retry.statusCode, 200, retry.body)
    assert.equal(retry.json().status, 'ok', retry.body)
    assert.equal(retry.json().content, `${told} {"action":"accept","content":{"ok":false}}`)
  }
  // The gateway's requestState is its own: the upstream got its own state back, byte for byte.
  const retried = modern.requests('tools/call', 'deploy').filter((m) => m.params?.requestState !== undefined)
  assert.deepEqual(retried.map((m) => m.params?.requestState), ['upstream-state'])
})
