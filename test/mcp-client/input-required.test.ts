// A 2026-07-28 upstream that asks questions the way that revision does (multi round-trip requests:
// a tools/call answered input_required, the SDK server's inputRequired(...)), driven through the
// gateway's core: the questions reach the call's own caller as the upstream asked them, the answers
// and the byte-exact requestState reach the upstream on a fresh request, two calls at once each get
// their own question, a caller that cannot be asked gets the error naming the question, a
// requestState-only answer is retried after a pause, and a server that never stops asking is given
// up after 10 rounds. Beside them a 5 s tool reports its progress.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { inputRequired, inputResponse } from '@modelcontextprotocol/server'
import type { InputRequests, ToolProgress } from '../../src/registry/types.ts'
import { AskingHttpServer, type AskingTool } from './helpers/asking-servers.ts'
import { connectedHarness, type McpHarness } from './helpers/harness.ts'
import { until } from './helpers/wait.ts'

const CONFIRM = { type: 'object' as const, properties: { ok: { type: 'boolean' as const } }, required: ['ok'] }
// Opaque to the client: characters a careless echo would re-encode or trim.
const STATE = ' state/é+=\u2028"q"\\ '
const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'

function confirmQuestion (target: string) {
  return inputRequired.elicit({ message: `Deploy to ${target}?`, requestedSchema: CONFIRM })
}

const SURVEY = {
  model: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Name a colour' } }], maxTokens: 20 }),
  where: inputRequired.listRoots(),
  docs: inputRequired.elicitUrl({ message: 'Read the terms', url: 'https://example.com/terms' })
}

function tools (shed: number[]): Record<string, AskingTool> {
  return {
    deploy: {
      inputSchema: { type: 'object', properties: { target: { type: 'string' } } },
      run: ({ target }, ctx) => {
        const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm')
        if (answer.kind !== 'elicit') return inputRequired({ inputRequests: { confirm: confirmQuestion(String(target)) }, requestState: `${STATE}${String(target)}` })
        const content = { target, state: ctx.mcpReq.requestState(), action: answer.action, answer: answer.content }
        return { content: [{ type: 'text', text: JSON.stringify(content) }] }
      }
    },
    survey: {
      run: (_args, ctx) => ctx.mcpReq.inputResponses === undefined
        ? inputRequired({ inputRequests: SURVEY })
        : { content: [{ type: 'text', text: JSON.stringify(ctx.mcpReq.inputResponses) }] }
    },
    busy: {
      run: (_args, ctx) => {
        shed.push(Date.now())
        return ctx.mcpReq.requestState() === undefined ? inputRequired({ requestState: 'later' }) : { content: [{ type: 'text', text: 'served' }] }
      }
    },
    insist: { run: () => inputRequired({ inputRequests: { again: confirmQuestion('anywhere') } }) },
    slow: {
      run: async (_args, ctx) => {
        const token = ctx.mcpReq._meta?.progressToken
        for (let second = 1; second <= 5; second++) {
          await new Promise((resolve) => setTimeout(resolve, 1_000))
          if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: second, total: 5, message: `second ${second}` } })
        }
        return { content: [{ type: 'text', text: 'slow done' }] }
      }
    }
  }
}

async function setup (t: TestContext): Promise<{ server: AskingHttpServer, h: McpHarness, shed: number[] }> {
  const shed: number[] = []
  const server = new AskingHttpServer('modern', tools(shed))
  await server.start()
  const h = await connectedHarness(t, 'modern', server, '2026-07-28')
  return { server, h, shed }
}

test('a question of a 2026-07-28 upstream reaches the caller as asked; the answer and the byte-exact requestState go back on a fresh request', async (t) => {
  const { server, h } = await setup(t)
  const asked: InputRequests[] = []
  const outcome = await h.call('mcp__modern__deploy', { target: 'prod' }, {
    ask: async (requests) => {
      asked.push(requests)
      return { confirm: { action: 'accept', content: { ok: true } } }
    }
  })
  assert.equal(outcome.status, 'ok', outcome.content)
  assert.deepEqual(asked, [{ confirm: confirmQuestion('prod') }])
  assert.deepEqual(JSON.parse(outcome.content), { target: 'prod', state: `${STATE}prod`, action: 'accept', answer: { ok: true } })

  const [first, retry] = server.requests('tools/call', 'deploy')
  assert.equal(server.requests('tools/call', 'deploy').length, 2)
  assert.notEqual(first.id, retry.id, 'the retry is a new request')
  assert.equal(first.params?.requestState, undefined)
  assert.equal(first.params?.inputResponses, undefined)
  assert.equal(retry.params?.requestState, `${STATE}prod`)
  assert.deepEqual(retry.params?.inputResponses, { confirm: { action: 'accept', content: { ok: true } } })
  // What the gateway declares it may be asked: every kind, in each request's envelope.
  assert.deepEqual((first.params?._meta as Record<string, unknown>)[CAPABILITIES], { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} })
})

test('questions of every kind keep the upstream\'s keys, and each answer goes back under its key', async (t) => {
  const { h } = await setup(t)
  const answers = {
    model: { role: 'assistant', content: { type: 'text', text: 'teal' }, model: 'test-model' },
    where: { roots: [{ uri: 'file:///work', name: 'work' }] },
    docs: { action: 'accept' }
  }
  let asked: InputRequests | undefined
  const outcome = await h.call('mcp__modern__survey', {}, { ask: async (requests) => { asked = requests; return answers } })
  assert.equal(outcome.status, 'ok', outcome.content)
  assert.deepEqual(asked, SURVEY)
  assert.deepEqual(JSON.parse(outcome.content), answers)
})

test('two calls at once each get their own question and their own answer, while a 5 s call reports its progress', async (t) => {
  const { h } = await setup(t)
  const reports: ToolProgress[] = []
  const slow = h.call('mcp__modern__slow', {}, { onProgress: (update) => { reports.push(update) } })
  const seen: string[] = []
  const bothAsked = Promise.withResolvers<void>()
  const callFor = (target: string) => h.call('mcp__modern__deploy', { target }, {
    ask: async (requests) => {
      seen.push(`${target} was asked: ${String(requests.confirm.params?.message)}`)
      if (seen.length === 2) bothAsked.resolve()
      // Both questions are open at once before either is answered.
      await bothAsked.promise
      return { confirm: { action: 'accept', content: { ok: target === 'alpha' } } }
    }
  })
  const [alpha, beta] = await Promise.all([callFor('alpha'), callFor('beta')])
  assert.deepEqual(seen.sort(), ['alpha was asked: Deploy to alpha?', 'beta was asked: Deploy to beta?'])
  assert.deepEqual(JSON.parse(alpha.content).answer, { ok: true })
  assert.deepEqual(JSON.parse(beta.content).answer, { ok: false })
  assert.equal(JSON.parse(alpha.content).state, `${STATE}alpha`)
  assert.equal(JSON.parse(beta.content).state, `${STATE}beta`)

  const done = await slow
  assert.equal(done.status, 'ok', done.content)
  assert.equal(done.content, 'slow done')
  assert.ok(reports.length >= 3, `progress reached the caller: ${JSON.stringify(reports)}`)
  assert.equal(reports.at(-1)?.message, 'second 5')
})

test('a caller that cannot be asked gets the error naming the upstream\'s question, and nothing is sent again', async (t) => {
  const { server, h } = await setup(t)
  const outcome = await h.call('mcp__modern__deploy', { target: 'prod' })
  assert.equal(outcome.status, 'error')
  const message: string = JSON.parse(outcome.content).error
  assert.match(message, /cannot be asked/)
  assert.match(message, /confirm: a form for the user \("Deploy to prod\?"\)/)
  assert.equal(server.requests('tools/call', 'deploy').length, 1)
})

test('an answer with requestState alone is sent again after a pause, asking the caller nothing', async (t) => {
  const { server, h, shed } = await setup(t)
  let asked = 0
  const outcome = await h.call('mcp__modern__busy', {}, { ask: async () => { asked++; return {} } })
  assert.equal(outcome.status, 'ok', outcome.content)
  assert.equal(outcome.content, 'served')
  assert.equal(asked, 0)
  const [, retry] = server.requests('tools/call', 'busy')
  assert.equal(retry.params?.requestState, 'later')
  assert.equal(retry.params?.inputResponses, undefined)
  assert.ok(shed[1] - shed[0] >= 200, `paused ${shed[1] - shed[0]} ms`)
})

test('an upstream that asks again and again is given up after 10 rounds', async (t) => {
  const { server, h } = await setup(t)
  let asked = 0
  const outcome = await h.call('mcp__modern__insist', {}, { ask: async () => { asked++; return { again: { action: 'decline' } } } })
  assert.equal(outcome.status, 'error')
  assert.equal(JSON.parse(outcome.content).error, 'MCP server "modern" still asked for input on tools/call "insist" after 10 rounds; the call was given up')
  assert.equal(asked, 10)
  assert.equal(server.requests('tools/call', 'insist').length, 11)
})

test('a call cancelled while its question waits ends cancelled and is not sent again', async (t) => {
  const { server, h } = await setup(t)
  const controller = new AbortController()
  let askerSignal: AbortSignal | undefined
  const pending = h.call('mcp__modern__deploy', { target: 'prod' }, {
    signal: controller.signal,
    ask: async (_requests, signal) => {
      askerSignal = signal
      return await new Promise((_resolve, reject) => { signal.addEventListener('abort', () => reject(signal.reason), { once: true }) })
    }
  })
  await until(() => askerSignal !== undefined, 'the question to reach the caller')
  controller.abort(new Error('the caller went away'))
  const outcome = await pending
  assert.equal(outcome.status, 'cancelled')
  await new Promise((resolve) => setTimeout(resolve, 100))
  assert.equal(server.requests('tools/call', 'deploy').length, 1)
})
