// A 2025-era upstream that asks questions the way that revision does: requests of its own
// (elicitation/create, sampling/createMessage, roots/list) while a tools/call runs, over Streamable
// HTTP and over stdio. Driven through the gateway's core: a question on the SSE stream of its call
// reaches that call's caller even with other calls running, and so does one on the standalone GET
// stream or a stdio pipe while its call is the only one in flight; the answer reaches the upstream;
// a caller that cannot answer fails the call with the error naming the question (the upstream gets
// a JSON-RPC error); a request that cannot be traced to one call (two requests in flight) is
// refused and logged, and nobody is asked. The SDK server's legacy shim (a 2026-07-28 tool's
// inputRequired(...) served to a 2025 session) asks on the call's stream.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { inputRequired, inputResponse } from '@modelcontextprotocol/server'
import type { McpServerConfig } from '../../src/config/schema.ts'
import type { InputRequests } from '../../src/registry/types.ts'
import { AskingHttpServer, writeLegacyStdioAsker, type AskingTool } from './helpers/asking-servers.ts'
import { connectedHarness, createMcpHarness, type McpHarness } from './helpers/harness.ts'
import { until } from './helpers/wait.ts'

const CONFIRM = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] }

/** The tool's answer, or the error its own request got, as text: what the test reads back. */
async function outcomeOf (label: string, work: () => Promise<unknown>) {
  try {
    return { content: [{ type: 'text', text: `${label}: ${JSON.stringify(await work())}` }] }
  } catch (err) {
    const { code, message } = err as { code?: number, message?: string }
    return { content: [{ type: 'text', text: `${label} refused: ${code} ${message}` }], isError: true }
  }
}

const TOOLS: Record<string, AskingTool> = {
  // Asks on its call's own stream (the request names the call it relates to).
  confirm: {
    inputSchema: { type: 'object', properties: { target: { type: 'string' } } },
    run: async ({ target }, ctx) => await outcomeOf(String(target), () =>
      ctx.mcpReq.elicitInput({ message: `Deploy to ${String(target)}?`, requestedSchema: CONFIRM as never }, { relatedRequestId: ctx.mcpReq.id }))
  },
  // Asks as the SDK server does by default: on the standalone GET stream.
  plain: {
    inputSchema: { type: 'object', properties: { target: { type: 'string' } } },
    run: async ({ target }, ctx) => await outcomeOf(String(target), () => ctx.mcpReq.elicitInput({ message: `Deploy to ${String(target)}?`, requestedSchema: CONFIRM as never }))
  },
  // A 2026-07-28 tool: the SDK's legacy shim turns its inputRequired(...) into a request on the call's stream.
  modern: {
    run: (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm')
      if (answer.kind !== 'elicit') return inputRequired({ inputRequests: { confirm: inputRequired.elicit({ message: 'Shim?', requestedSchema: CONFIRM as never }) } })
      return { content: [{ type: 'text', text: `shim: ${JSON.stringify(answer)}` }] }
    }
  },
  sample: {
    run: async (_args, ctx) => await outcomeOf('sample', () =>
      ctx.mcpReq.requestSampling({ messages: [{ role: 'user', content: { type: 'text', text: 'Name a colour' } }], maxTokens: 20 }, { relatedRequestId: ctx.mcpReq.id }))
  },
  wait: {
    inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
    run: async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, Number(ms)))
      return { content: [{ type: 'text', text: 'waited' }] }
    }
  }
}

async function setupHttp (t: TestContext): Promise<{ server: AskingHttpServer, h: McpHarness }> {
  const server = new AskingHttpServer('legacy', TOOLS)
  await server.start()
  const h = await connectedHarness(t, 'legacy', server, '2025-11-25')
  return { server, h }
}

function accept (ok: boolean) {
  return async (requests: InputRequests) => Object.fromEntries(Object.keys(requests).map((key) => [key, { action: 'accept', content: { ok } }]))
}

test('over HTTP, an elicitation of a 2025 upstream reaches the caller of its call as asked, and the answer reaches the upstream', async (t) => {
  const { server, h } = await setupHttp(t)
  const initialize = server.requests('initialize')[0]
  assert.deepEqual(initialize.params?.capabilities, { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} }, 'the gateway declares what its callers may be asked')
  const asked: InputRequests[] = []
  const outcome = await h.call('mcp__legacy__confirm', { target: 'prod' }, { ask: async (requests) => { asked.push(requests); return await accept(true)(requests) } })
  assert.equal(outcome.status, 'ok', outcome.content)
  assert.equal(outcome.content, 'prod: {"action":"accept","content":{"ok":true}}')
  assert.equal(asked.length, 1)
  const [[key, question]] = Object.entries(asked[0])
  assert.match(key, /^elicitation-\d+$/)
  assert.equal(question.method, 'elicitation/create')
  assert.equal(question.params?.message, 'Deploy to prod?')
  assert.deepEqual(question.params?.requestedSchema, CONFIRM)
  assert.deepEqual(server.answers().map((answer) => answer.result), [{ action: 'accept', content: { ok: true } }])
})

test('over HTTP, two calls at once each get their own question, and each answer reaches its own call', async (t) => {
  const { h } = await setupHttp(t)
  const seen: string[] = []
  const bothAsked = Promise.withResolvers<void>()
  const callFor = (target: string) => h.call('mcp__legacy__confirm', { target }, {
    ask: async (requests) => {
      const [question] = Object.values(requests)
      seen.push(`${target} was asked: ${String(question.params?.message)}`)
      if (seen.length === 2) bothAsked.resolve()
      await bothAsked.promise
      return await accept(target === 'alpha')(requests)
    }
  })
  const [alpha, beta] = await Promise.all([callFor('alpha'), callFor('beta')])
  assert.deepEqual(seen.sort(), ['alpha was asked: Deploy to alpha?', 'beta was asked: Deploy to beta?'])
  assert.equal(alpha.content, 'alpha: {"action":"accept","content":{"ok":true}}')
  assert.equal(beta.content, 'beta: {"action":"accept","content":{"ok":false}}')
})

test('over HTTP, a sampling request reaches the caller and its message goes back', async (t) => {
  const { h } = await setupHttp(t)
  const message = { role: 'assistant', content: { type: 'text', text: 'teal' }, model: 'test-model' }
  let asked: InputRequests | undefined
  const outcome = await h.call('mcp__legacy__sample', {}, { ask: async (requests) => { asked = requests; return Object.fromEntries(Object.keys(requests).map((key) => [key, message])) } })
  assert.equal(outcome.status, 'ok', outcome.content)
  assert.deepEqual(JSON.parse(outcome.content.slice('sample: '.length)), message)
  assert.deepEqual(Object.values(asked ?? {}).map((q) => [q.method, q.params?.maxTokens]), [['sampling/createMessage', 20]])
})

test('over HTTP, a caller that cannot answer fails the call naming the question; the upstream gets -32602', async (t) => {
  const { server, h } = await setupHttp(t)
  const outcome = await h.call('mcp__legacy__confirm', { target: 'prod' })
  assert.equal(outcome.status, 'error')
  const message: string = JSON.parse(outcome.content).error
  assert.match(message, /cannot be asked/)
  assert.match(message, /a form for the user \("Deploy to prod\?"\)/)
  const [refusal] = server.answers()
  assert.equal(refusal.error?.code, -32602)
  assert.match(refusal.error?.message ?? '', /cannot be asked/)
})

test('over HTTP, the SDK\'s legacy shim asks on the call\'s stream: the question reaches the caller with the upstream\'s params', async (t) => {
  const { h } = await setupHttp(t)
  let asked: InputRequests | undefined
  const outcome = await h.call('mcp__legacy__modern', {}, { ask: async (requests) => { asked = requests; return await accept(true)(requests) } })
  assert.equal(outcome.status, 'ok', outcome.content)
  assert.equal(outcome.content, 'shim: {"kind":"elicit","action":"accept","content":{"ok":true}}')
  assert.deepEqual(Object.values(asked ?? {}).map((q) => [q.method, q.params?.message]), [['elicitation/create', 'Shim?']])
})

test('over HTTP, a question on the standalone GET stream reaches the caller of the only call in flight', async (t) => {
  const { h } = await setupHttp(t)
  let asked: InputRequests | undefined
  const outcome = await h.call('mcp__legacy__plain', { target: 'prod' }, { ask: async (requests) => { asked = requests; return await accept(true)(requests) } })
  assert.equal(outcome.status, 'ok', outcome.content)
  assert.equal(outcome.content, 'prod: {"action":"accept","content":{"ok":true}}')
  assert.equal(Object.values(asked ?? {})[0]?.params?.message, 'Deploy to prod?')
})

test('over HTTP, a question on the standalone GET stream while two requests are in flight is refused (-32600) and logged; nobody is asked', async (t) => {
  const { server, h } = await setupHttp(t)
  let asked = 0
  const waiting = h.call('mcp__legacy__wait', { ms: 1_500 })
  await until(() => server.requests('tools/call', 'wait').length === 1, 'the first call to reach the server')
  const outcome = await h.call('mcp__legacy__plain', { target: 'prod' }, { ask: async () => { asked++; return {} } })
  assert.equal(asked, 0)
  assert.equal(outcome.status, 'error')
  assert.match(outcome.content, /prod refused: -32600/)
  assert.match(outcome.content, /2 requests were in flight and it came on no request's stream/)
  assert.equal(server.answers()[0]?.error?.code, -32600)
  assert.ok(h.log.lines().some((line) => line.msg === 'MCP server request refused: no call it belongs to' && line.method === 'elicitation/create'))
  assert.equal((await waiting).content, 'waited')
})

async function setupStdio (t: TestContext): Promise<McpHarness> {
  const script = await writeLegacyStdioAsker()
  const h = await createMcpHarness({ local: { command: process.execPath, args: [script], protocol: '2025-11-25' } as McpServerConfig }, { tuning: { backoffBaseMs: 20, pingIntervalMs: 0 } })
  t.after(() => h.manager.stop())
  h.manager.start()
  await h.manager.ready()
  assert.equal(h.manager.states()[0].state, 'connected', h.manager.states()[0].lastError ?? '')
  return h
}

test('over stdio, the elicitation of the only call in flight reaches its caller, and the answer the upstream', async (t) => {
  const h = await setupStdio(t)
  const asked: InputRequests[] = []
  const outcome = await h.call('mcp__local__confirm', { target: 'prod' }, { ask: async (requests) => { asked.push(requests); return await accept(true)(requests) } })
  assert.equal(outcome.status, 'ok', outcome.content)
  assert.equal(outcome.content, 'prod: {"action":"accept","content":{"ok":true}}')
  assert.equal(Object.values(asked[0])[0].params?.message, 'Deploy to prod?')
})

test('over stdio, with two requests in flight nobody can tell whose the elicitation is: it is refused (-32600) and logged', async (t) => {
  const h = await setupStdio(t)
  let asked = 0
  const waiting = h.call('mcp__local__wait', { ms: 1_500 })
  await new Promise((resolve) => setTimeout(resolve, 200))
  const outcome = await h.call('mcp__local__confirm', { target: 'prod' }, { ask: async (requests) => { asked++; return await accept(true)(requests) } })
  assert.equal(asked, 0, 'no caller was asked')
  assert.equal(outcome.status, 'error')
  assert.match(outcome.content, /prod refused: -32600/)
  assert.match(outcome.content, /2 requests were in flight on its stdio pipe/)
  assert.equal((await waiting).content, 'waited')
  assert.ok(h.log.lines().some((line) => line.msg === 'MCP server request refused: no call it belongs to' && line.method === 'elicitation/create'))
})

test('over stdio, a call cancelled before its answer is no longer in flight: the next call\'s question reaches its caller', async (t) => {
  const h = await setupStdio(t)
  const controller = new AbortController()
  const cancelled = h.call('mcp__local__wait', { ms: 60_000 }, { signal: controller.signal })
  await new Promise((resolve) => setTimeout(resolve, 200))
  controller.abort(new Error('the caller went away'))
  assert.equal((await cancelled).status, 'cancelled')
  // The server answers no cancelled request (MCP cancellation): only the call's end takes it out of flight.
  const outcome = await h.call('mcp__local__confirm', { target: 'prod' }, { ask: accept(true) })
  assert.equal(outcome.status, 'ok', outcome.content)
  assert.equal(outcome.content, 'prod: {"action":"accept","content":{"ok":true}}')
})
