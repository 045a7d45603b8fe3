// A tools/call held for approval from a 2026-07-28 client that declared the Tasks extension and URL
// elicitation, by hand: the call becomes a task, tasks/get shows the URL elicitation pointing at
// the approval, tasks/update accepts it, and the task completes once an operator approves.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { rawRpc } from '../mcp-server/raw.ts'
import { modernHeaders, modernRequest } from '../mcp-server/helpers/modern.ts'
import { approvalGateway, as } from './helpers.ts'

test('Tasks extension: the approval is a URL elicitation of the task; accepted, the task completes once approved', async (t) => {
  const { app, ran } = await approvalGateway(t, 60_000, { MCP_TASK_AFTER_MS: '0' })
  const url = new URL(`${await app.listen({ host: '127.0.0.1', port: 0 })}/mcp`)
  const caps = { elicitation: { url: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } }
  const started = await rawRpc(url, modernRequest('tools/call', { name: 'wipe', arguments: { path: '/srv/t' }, _meta: { 'io.modelcontextprotocol/clientCapabilities': caps } }), { ...modernHeaders('tools/call'), 'mcp-name': 'wipe', ...as('alice') })
  const handle = started.message?.result as Record<string, unknown>
  assert.equal(handle.resultType, 'task', JSON.stringify(started.message))
  const taskId = handle.taskId as string
  const task = async (method: string, params: Record<string, unknown> = {}) =>
    (await rawRpc(url, modernRequest(method, { taskId, ...params }), { ...modernHeaders(method), 'mcp-name': taskId, ...as('alice') })).message
  const poll = async (until: (status: unknown) => boolean): Promise<Record<string, unknown>> => {
    let polled = (await task('tasks/get'))?.result as Record<string, unknown>
    for (let i = 0; !until(polled.status) && i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      polled = (await task('tasks/get'))?.result as Record<string, unknown>
    }
    return polled
  }
  const asking = await poll((status) => status === 'input_required')
  const question = (asking.inputRequests as Record<string, { method: string, params: { mode: string, url: string } }>).approval
  assert.equal(question?.method, 'elicitation/create', JSON.stringify(asking))
  assert.equal(question.params.mode, 'url')
  const approvalId = question.params.url.split('/').at(-1)!
  assert.match(approvalId, /^apr_/)
  assert.equal((await task('tasks/update', { inputResponses: { approval: { action: 'accept' } } }))?.error, undefined)
  const waiting = await poll((status) => status !== 'input_required')
  assert.equal(waiting.status, 'working', JSON.stringify(waiting))
  assert.equal(ran.length, 0)

  const decided = await app.inject({ method: 'POST', url: `/admin/approvals/${approvalId}`, headers: as('ops'), payload: { decision: 'approve' } })
  assert.equal(decided.statusCode, 200, decided.body)
  const done = await poll((status) => status === 'completed')
  assert.equal(done.status, 'completed', JSON.stringify(done))
  assert.deepEqual((done.result as { content: unknown }).content, [{ type: 'text', text: '{"wiped":"/srv/t"}' }])
  assert.deepEqual(ran, [{ path: '/srv/t' }])
})
