// Answers of an MCP server over Streamable HTTP are capped in decoded bytes (JSON and SSE, gzip or
// not) while they stream, and bound to the request whose POST they come back on: a server that
// sends 300 MB, a gzip bomb, or another caller's answer fails only that call, fast, naming itself
// and the cap; the connection and the other tools stay up.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { ServerResponse } from 'node:http'
import { createMcpHarness, type McpHarness } from './helpers/harness.ts'
import { TestMcpHttpServer, type ReceivedMessage } from './helpers/http-server.ts'
import { writeAnswer } from './helpers/raw-answers.ts'

const CAP = 1_048_576
const TOOLS = ['json', 'sse', 'gzip_json', 'gzip_sse', 'whoami', 'echo']
const OBJECT = { type: 'object', properties: { bytes: { type: 'integer' }, caller: { type: 'string' } } }

interface Setup { h: McpHarness, server: TestMcpHttpServer, written: number[] }

async function setup (t: { after: (fn: () => Promise<void>) => void }, raw: (message: ReceivedMessage, res: ServerResponse, written: number[]) => boolean): Promise<Setup> {
  const server = new TestMcpHttpServer(Object.fromEntries(TOOLS.map((name) => [name, {
    inputSchema: OBJECT,
    run: () => ({ content: [{ type: 'text' as const, text: `${name} answered by the SDK server` }] })
  }])))
  const written: number[] = []
  server.rawAnswer = (message, res) => raw(message, res, written)
  await server.start()
  const h = await createMcpHarness({ up: { url: server.url, maxMessageBytes: CAP } }, { tuning: { pingIntervalMs: 0 } })
  t.after(async () => {
    await h.manager.stop()
    await server.close()
  })
  h.manager.start()
  await h.manager.ready()
  assert.equal(h.manager.connection('up')?.state, 'connected')
  return { h, server, written }
}

function sized (message: ReceivedMessage, res: ServerResponse, written: number[]): boolean {
  const name = message.params?.name as string
  const args = (message.params?.arguments ?? {}) as { bytes?: number }
  if (!['json', 'sse', 'gzip_json', 'gzip_sse'].includes(name)) return false
  writeAnswer(message, res, { textBytes: args.bytes ?? 10, sse: name.endsWith('sse'), gzip: name.startsWith('gzip') }).then((n) => written.push(n), () => {})
  return true
}

test('answers within the cap pass, JSON or SSE, gzip or not', async (t) => {
  const { h } = await setup(t, sized)
  for (const tool of ['json', 'sse', 'gzip_json', 'gzip_sse']) {
    // Within the dispatcher's own result cap, so the whole text comes back.
    const outcome = await h.call(`mcp__up__${tool}`, { bytes: 50_000 })
    assert.equal(outcome.status, 'ok', `${tool}: ${outcome.content.slice(0, 300)}`)
    assert.ok(outcome.content === 'a'.repeat(50_000), `${tool}: ${outcome.content.length} characters`)
  }
})

test('an answer over the cap fails its call naming the server and the cap; the download stops; the connection stays up', async (t) => {
  const { h, written } = await setup(t, sized)
  const total = 64 * CAP
  for (const tool of ['json', 'sse', 'gzip_json', 'gzip_sse']) {
    const started = Date.now()
    const outcome = await h.call(`mcp__up__${tool}`, { bytes: total })
    assert.equal(outcome.ok, false, tool)
    assert.match(outcome.error?.message ?? '', /MCP server "up" failed tools\/call "json|sse|gzip_json|gzip_sse"/, tool)
    assert.match(outcome.error?.message ?? '', new RegExp(`over the ${CAP}-byte cap on one message`), tool)
    assert.ok(outcome.content.length < 2_000, `${tool}: nothing of the answer is relayed`)
    assert.ok(Date.now() - started < 10_000, `${tool}: refused while streaming, not after`)
  }
  // The server stopped writing long before the 64 MiB it meant to send (the client went away).
  await new Promise((resolve) => setTimeout(resolve, 200))
  assert.equal(written.length, 4)
  for (const bytes of written) assert.ok(bytes < total / 2, `the server wrote ${bytes} of ${total} bytes`)
  const sibling = await h.call('mcp__up__echo', {})
  assert.equal(sibling.status, 'ok', sibling.content)
  assert.equal(h.manager.connection('up')?.state, 'connected')
  assert.ok(h.log.lines().some((line) => line.msg === 'MCP server answer refused'), 'operators see it in the log')
})

test('a server that swaps two callers\' answers gives neither caller the other\'s data', async (t) => {
  const waiting: Array<{ message: ReceivedMessage, res: ServerResponse }> = []
  const { h } = await setup(t, (message, res) => {
    if (message.params?.name !== 'whoami') return false
    waiting.push({ message, res })
    if (waiting.length === 2) {
      // Each POST's own answer, labelled with the other request's id: what a confused proxy sends.
      const [a, b] = waiting
      const caller = (m: ReceivedMessage): string => (m.params?.arguments as { caller: string }).caller
      writeAnswer(a.message, a.res, { textBytes: 0, sse: true, gzip: false, id: b.message.id, text: `secret of ${caller(a.message)}` }).catch(() => {})
      writeAnswer(b.message, b.res, { textBytes: 0, sse: false, gzip: false, id: a.message.id, text: `secret of ${caller(b.message)}` }).catch(() => {})
    }
    return true
  })
  const [alice, bob] = await Promise.all([
    h.call('mcp__up__whoami', { caller: 'alice' }, { timeoutMs: 10_000 }),
    h.call('mcp__up__whoami', { caller: 'bob' }, { timeoutMs: 10_000 })
  ])
  assert.doesNotMatch(alice.content, /secret of bob/)
  assert.doesNotMatch(bob.content, /secret of alice/)
  for (const outcome of [alice, bob]) {
    assert.equal(outcome.ok, false)
    assert.match(outcome.error?.message ?? '', /sent an answer naming request id .* on the response of request .*; it was refused/)
  }
  assert.equal((await h.call('mcp__up__echo', {})).status, 'ok')
})
