// What the gateway reads of an upstream's task handles and questions before it acts on them: a task
// state (SEP-2663) or why it is none, the poll interval kept within bounds, a task handle recognised
// only when the gateway itself carried it through the SDK, and questions of the three kinds a
// caller answers, a malformed one named as the server's fault.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ProtocolError } from '@modelcontextprotocol/client'
import { pollInterval, POLL_DEFAULT_MS, POLL_MAX_MS, POLL_MIN_MS } from '../../src/mcp-client/task-follower.ts'
import { passTaskHandles, readTask, taskHandleOf } from '../../src/mcp-client/task-handles.ts'
import { upstreamQuestions } from '../../src/mcp-client/upstream-questions.ts'

test('readTask: a task state, or why the answer is none', () => {
  assert.deepEqual(readTask({ taskId: 't1', status: 'working', statusMessage: 'busy', pollIntervalMs: 300, createdAt: 'x' }), { taskId: 't1', status: 'working', statusMessage: 'busy', pollIntervalMs: 300 })
  assert.deepEqual(readTask({ taskId: 't1', status: 'completed', result: { content: [] } }, 't1'), { taskId: 't1', status: 'completed', result: { content: [] } })
  assert.equal(readTask([], 't1'), 'the task is not an object')
  assert.equal(readTask({ status: 'working' }), 'the task has no usable taskId')
  assert.equal(readTask({ taskId: 'x'.repeat(1_001), status: 'working' }), 'the task has no usable taskId')
  assert.equal(readTask({ taskId: 't2', status: 'working' }, 't1'), 'the answer is about task "t2", not "t1"')
  assert.match(readTask({ taskId: 't1', status: 'paused' }) as string, /status "paused" is none of working, input_required, completed, failed, cancelled/)
})

test('pollInterval: the task\'s own, kept within 100 ms and 5 s; 1 s when it names none', () => {
  assert.equal(pollInterval(undefined), POLL_DEFAULT_MS)
  assert.equal(pollInterval(0), POLL_MIN_MS)
  assert.equal(pollInterval(250), 250)
  assert.equal(pollInterval(3_600_000), POLL_MAX_MS)
})

test('a task handle is recognised only when the gateway carried it: an error of the same shape from a server is not one', () => {
  let dispatched: unknown
  const transport = { onmessage: (message: unknown) => { dispatched = message } } as unknown as Parameters<typeof passTaskHandles>[0]
  passTaskHandles(transport)
  const handle = { resultType: 'task', taskId: 't1', status: 'working' }
  transport.onmessage?.({ jsonrpc: '2.0', id: 4, result: handle })
  const { error } = dispatched as { id: number, error: { code: number, message: string, data: unknown } }
  assert.equal(taskHandleOf(new ProtocolError(error.code, error.message, error.data)), handle)
  assert.equal(taskHandleOf(new ProtocolError(error.code, error.message, structuredClone(error.data))), undefined, 'a copy (what a server could send) is not recognised')
  transport.onmessage?.({ jsonrpc: '2.0', id: 5, result: { resultType: 'complete', content: [] } })
  assert.deepEqual(dispatched, { jsonrpc: '2.0', id: 5, result: { resultType: 'complete', content: [] } })
})

test('upstreamQuestions: the three kinds pass as asked; anything else is the server\'s fault, named', () => {
  const asked = { a: { method: 'roots/list' }, b: { method: 'elicitation/create', params: { message: 'Go?' } } }
  assert.deepEqual(upstreamQuestions('up', asked), asked)
  assert.deepEqual(upstreamQuestions('up', {}), {})
  assert.throws(() => upstreamQuestions('up', [1]), /MCP server "up" asked for input the gateway cannot pass on: inputRequests is not an object/)
  assert.throws(() => upstreamQuestions('up', { x: { method: 'tools/call' } }), /"x" is no elicitation\/create, sampling\/createMessage or roots\/list request/)
  assert.throws(() => upstreamQuestions('up', { y: { method: 'roots/list', params: 'all' } }), /the params of "y" are not an object/)
})
