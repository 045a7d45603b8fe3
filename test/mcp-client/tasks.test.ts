// An upstream that answers tools/call with task handles (the Tasks extension, SEP-2663; a real
// JSON-RPC server of the test's own, helpers/task-server.ts, in front of an SDK server), driven
// through the gateway's core: the extension is declared only to a server that offers it, the task is
// polled (tasks/get, Mcp-Name = its id) through working, input_required and completed, its status
// messages reach the caller as progress, its question reaches the caller once and the answer goes
// back with tasks/update, a failed task fails the call with the server's error, and a call that
// ends first (cancelled, timed out, its question unanswerable) sends tasks/cancel.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { isDeepStrictEqual } from 'node:util'
import type { InputRequests, ToolProgress } from '../../src/registry/types.ts'
import { connectedHarness, type McpHarness } from './helpers/harness.ts'
import { TASKS, TaskServer, type RecordedTaskMessage, type TaskServerOptions, type TaskWork } from './helpers/task-server.ts'
import { until } from './helpers/wait.ts'

const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'
const CONFIRM = {
  method: 'elicitation/create',
  params: { mode: 'form', message: 'Deploy to prod?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } }
}

const delay = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

const WORK: Record<string, TaskWork> = {
  deploy: async (task) => {
    task.working('preparing')
    await delay(150)
    const answers = await task.ask({ confirm: CONFIRM }, 'waiting for a confirmation')
    task.working('deploying')
    await delay(150)
    task.complete({ content: [{ type: 'text', text: `deployed: ${JSON.stringify(answers.confirm)}` }] })
  },
  forever: async (task) => {
    task.working('running')
    await new Promise((resolve) => task.cancelled.addEventListener('abort', resolve, { once: true }))
  },
  broken: async (task) => {
    task.working('trying')
    await delay(100)
    task.fail({ code: -32603, message: 'the disk is full' })
  },
  refused: async (task) => {
    await delay(100)
    task.complete({ content: [{ type: 'text', text: 'not allowed here' }], isError: true })
  }
}

async function setup (t: TestContext, options: TaskServerOptions = {}): Promise<{ server: TaskServer, h: McpHarness }> {
  const server = new TaskServer(WORK, options)
  await server.start()
  const h = await connectedHarness(t, 'tasks', server, '2026-07-28')
  return { server, h }
}

test('a task is followed through working, input_required and completed: one question, one tasks/update, its messages as progress', async (t) => {
  const { server, h } = await setup(t)
  const asked: InputRequests[] = []
  const reports: ToolProgress[] = []
  const outcome = await h.call('mcp__tasks__deploy', {}, {
    onProgress: (update) => { reports.push(update) },
    ask: async (requests) => {
      asked.push(requests)
      return { confirm: { action: 'accept', content: { ok: true } } }
    }
  })
  assert.equal(outcome.status, 'ok', outcome.content)
  assert.equal(outcome.content, 'deployed: {"action":"accept","content":{"ok":true}}')

  const [call] = server.requests('tools/call')
  assert.deepEqual((call.params?._meta as Record<string, unknown>)[CAPABILITIES], {
    elicitation: { form: {}, url: {} }, sampling: {}, roots: {}, extensions: { [TASKS]: {} }
  }, 'the extension is declared on the call, beside what the callers may be asked')
  const [taskId] = server.tasks.keys()
  // The answers showed in tasks/get a poll late: the question was still listed, and not asked again.
  assert.deepEqual(asked, [{ confirm: CONFIRM }])
  assert.deepEqual(server.requests('tasks/update').map(({ params }) => [params?.taskId, params?.inputResponses]), [[taskId, { confirm: { action: 'accept', content: { ok: true } } }]])
  const gets = server.requests('tasks/get')
  const declared = (m: RecordedTaskMessage): unknown => (m.params?._meta as Record<string, { extensions?: unknown }>)[CAPABILITIES].extensions
  assert.ok([...gets, ...server.requests('tasks/update')].every((m) => isDeepStrictEqual(declared(m), { [TASKS]: {} })), 'the extension\'s requests declare it')
  assert.ok(gets.length >= 4, `polled ${gets.length} times`)
  assert.ok(gets.every((m) => m.params?.taskId === taskId && m.mcpName === taskId), 'every poll names the task, in Mcp-Name too')
  assert.deepEqual(reports.map((r) => r.message), ['preparing', 'waiting for a confirmation', 'deploying'])
  assert.equal(server.requests('tasks/cancel').length, 0)
})

test('a call cancelled by its caller sends tasks/cancel for its task', async (t) => {
  const { server, h } = await setup(t)
  const controller = new AbortController()
  const pending = h.call('mcp__tasks__forever', {}, { signal: controller.signal })
  await until(() => server.requests('tasks/get').length >= 1, 'the task to be polled')
  controller.abort(new Error('the caller went away'))
  const outcome = await pending
  assert.equal(outcome.status, 'cancelled')
  const [taskId] = server.tasks.keys()
  await until(() => server.requests('tasks/cancel').length === 1, 'tasks/cancel')
  assert.deepEqual(server.requests('tasks/cancel').map((m) => [m.params?.taskId, m.mcpName]), [[taskId, taskId]])
  assert.equal(server.tasks.get(taskId)?.status, 'cancelled')
})

test('a call past its deadline sends tasks/cancel for its task', async (t) => {
  const { server, h } = await setup(t)
  const outcome = await h.call('mcp__tasks__forever', {}, { timeoutMs: 400 })
  assert.equal(outcome.status, 'timeout')
  await until(() => server.requests('tasks/cancel').length === 1, 'tasks/cancel')
})

test('a failed task fails the call with the server\'s error; a completed tool error is the call\'s error', async (t) => {
  const { server, h } = await setup(t)
  const failed = await h.call('mcp__tasks__broken', {})
  assert.equal(failed.status, 'error')
  assert.match(JSON.parse(failed.content).error, /^MCP server "tasks" failed tools\/call "broken" \(task "[^"]+"\): the disk is full \(JSON-RPC error -32603\)$/)
  const refused = await h.call('mcp__tasks__refused', {})
  assert.equal(refused.status, 'error')
  assert.equal(JSON.parse(refused.content).error, 'not allowed here')
  assert.equal(server.requests('tasks/cancel').length, 0, 'a task that ended is not cancelled')
})

test('a task question the caller cannot answer fails the call naming it, and the task is cancelled', async (t) => {
  const { server, h } = await setup(t)
  const outcome = await h.call('mcp__tasks__deploy', {})
  assert.equal(outcome.status, 'error')
  const message: string = JSON.parse(outcome.content).error
  assert.match(message, /cannot be asked/)
  assert.match(message, /confirm: a form for the user \("Deploy to prod\?"\)/)
  await until(() => server.requests('tasks/cancel').length === 1, 'tasks/cancel')
  assert.equal(server.requests('tasks/update').length, 0)
})

test('a server that does not offer the extension is not told of it, and a task handle from it is refused', async (t) => {
  const { server, h } = await setup(t, { offer: false })
  const outcome = await h.call('mcp__tasks__deploy', {}, { ask: async () => ({ confirm: { action: 'accept' } }) })
  assert.equal(outcome.status, 'error')
  assert.match(JSON.parse(outcome.content).error, /answered tools\/call "deploy" with a task handle, though the request did not declare the Tasks extension \(the server did not offer it in server\/discover\)/)
  const [call] = server.requests('tools/call')
  assert.equal(((call.params?._meta as Record<string, { extensions?: unknown }>)[CAPABILITIES]).extensions, undefined)
  assert.equal(server.requests('tasks/get').length, 0)
})
