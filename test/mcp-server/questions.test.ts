// A tool's questions (ctx.ask) reach MCP clients in their own revision, with clients no one here
// wrote (the SDK 2.4 client): a 2026-07-28 client gets input_required and its multi-round-trip
// driver answers from its elicitation handler; a 2025-11-25 session gets elicitation/create; a
// client that declared no elicitation gets the tool's error naming the question. By hand: a
// requestState of another key or tool, answers that do not fit, and the Tasks extension (a task
// handle, tasks/get showing the question, tasks/update answering it, tasks/cancel stopping it).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'
import type { InputRequests } from '../../src/registry/types.ts'
import { rawRpc } from './raw.ts'
import { modernHeaders, modernRequest, REVISION } from './helpers/modern.ts'

const CONFIRM: InputRequests = {
  confirm: { method: 'elicitation/create', params: { mode: 'form', message: 'Deploy to prod?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } }
}

const ALICE = 'alice-key-0123456789abcdef'
const BOB = 'bob-key-0123456789abcdef00'
const sha256 = (key: string): string => createHash('sha256').update(key).digest('hex')

/** Env for a gateway with two keys, alice and bob. */
async function withKeys (t: Parameters<typeof buildTestApp>[0]): Promise<Record<string, string>> {
  const dir = await mkdtemp(join(tmpdir(), 'questions-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'gateway.yaml')
  await writeFile(file, ['auth:', '  keys:', `    - { name: alice, sha256: ${sha256(ALICE)} }`, `    - { name: bob, sha256: ${sha256(BOB)} }`, ''].join('\n'))
  return { GATEWAY_CONFIG: file, AUTH_FAILURE_MAX: '1000' }
}

async function gateway (t: Parameters<typeof buildTestApp>[0], env: Record<string, string> = {}) {
  const built = await buildTestApp(t, env)
  const { registry } = built.app.gateway
  const aborted = { count: 0 }
  registry.register(fixtureTool('deploy', {
    handler: async (_args, ctx) => {
      const answers = await ctx.ask!(CONFIRM)
      return JSON.stringify({ told: answers.confirm })
    }
  }))
  registry.register(fixtureTool('slow_deploy', {
    handler: async (_args, ctx) => {
      await new Promise((resolve) => setTimeout(resolve, 300))
      const answers = await ctx.ask!(CONFIRM)
      ctx.reportProgress?.({ progress: 1, total: 2, message: 'deploying' })
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, 400)
        ctx.signal.addEventListener('abort', () => { clearTimeout(timer); aborted.count++; reject(ctx.signal.reason) }, { once: true })
      })
      return JSON.stringify({ deployed: answers.confirm })
    }
  }))
  registry.register(fixtureTool('sleeper', {
    handler: async (_args, ctx) => await new Promise<string>((resolve) => {
      ctx.reportProgress?.({ progress: 1, total: 2, message: 'sleeping' })
      ctx.signal.addEventListener('abort', () => { aborted.count++; resolve('woken') }, { once: true })
    })
  }))
  const address = await built.app.listen({ host: '127.0.0.1', port: 0 })
  return { ...built, aborted, url: new URL(`${address}/mcp`) }
}

async function connect (t: Parameters<typeof buildTestApp>[0], url: URL, revision: string, answer?: (message: string) => Record<string, unknown>): Promise<{ client: Client, asked: string[] }> {
  const asked: string[] = []
  const client = new Client({ name: 'questions-test', version: '1' }, {
    versionNegotiation: { mode: revision === REVISION ? { pin: revision } : 'legacy' },
    capabilities: answer === undefined ? {} : { elicitation: { form: {} } }
  })
  if (answer !== undefined) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const message = (request.params as { message: string }).message
      asked.push(message)
      return answer(message) as never
    })
  }
  await client.connect(new StreamableHTTPClientTransport(url))
  t.after(() => client.close())
  return { client, asked }
}

for (const revision of [REVISION, '2025-11-25']) {
  test(`${revision}: the tool's question reaches the SDK client's elicitation handler, and its answer the tool`, async (t) => {
    const { url } = await gateway(t)
    const { client, asked } = await connect(t, url, revision, () => ({ action: 'accept', content: { ok: true } }))
    const result = await client.callTool({ name: 'deploy', arguments: {} })
    assert.equal(result.isError, false, JSON.stringify(result))
    assert.deepEqual(result.content, [{ type: 'text', text: '{"told":{"action":"accept","content":{"ok":true}}}' }])
    assert.deepEqual(asked, ['Deploy to prod?'])
  })

  test(`${revision}: a client that declared no elicitation gets the tool's error naming the question`, async (t) => {
    const { url } = await gateway(t)
    const { client } = await connect(t, url, revision)
    const result = await client.callTool({ name: 'deploy', arguments: {} })
    assert.equal(result.isError, true)
    const text = (result.content as Array<{ text: string }>)[0]!.text
    assert.match(text, /Deploy to prod\?/)
    assert.match(text, /declared no elicitation capability/)
  })
}

/** A raw 2026-07-28 tools/call, with `_meta` capabilities and any other params. */
async function rawCall (url: URL, params: Record<string, unknown>, capabilities: Record<string, unknown>, headers: Record<string, string> = {}) {
  const body = modernRequest('tools/call', { ...params, _meta: { 'io.modelcontextprotocol/clientCapabilities': capabilities } })
  return await rawRpc(url, body, { ...modernHeaders('tools/call'), 'mcp-name': params.name as string, ...headers })
}

test('2026-07-28 by hand: input_required with a requestState; the retry with answers completes; bad retries are refused as such', async (t) => {
  const { url } = await gateway(t, await withKeys(t))
  const alice = { authorization: `Bearer ${ALICE}` }
  const bob = { authorization: `Bearer ${BOB}` }
  const caps = { elicitation: { form: {} } }
  const first = await rawCall(url, { name: 'deploy', arguments: {} }, caps, alice)
  const result = first.message?.result as Record<string, unknown>
  assert.equal(result.resultType, 'input_required', JSON.stringify(first.message))
  assert.deepEqual(result.inputRequests, CONFIRM)
  const requestState = result.requestState as string
  assert.equal(typeof requestState, 'string')

  // Another key's retry: the call is not its own.
  const foreign = await rawCall(url, { name: 'deploy', arguments: {}, requestState, inputResponses: { confirm: { action: 'accept', content: { ok: true } } } }, caps, bob)
  assert.equal(foreign.message?.error?.code, -32602, JSON.stringify(foreign))
  assert.match(foreign.message?.error?.message ?? '', /names no call of this client/)
  // Another tool's retry, and an answer that does not fit the form.
  const otherTool = await rawCall(url, { name: 'slow_deploy', arguments: {}, requestState, inputResponses: { confirm: { action: 'decline' } } }, caps, alice)
  assert.match(otherTool.message?.error?.message ?? '', /names a call of tool "deploy"/)
  const misfit = await rawCall(url, { name: 'deploy', arguments: {}, requestState, inputResponses: { confirm: { action: 'accept', content: { ok: 'yes' } } } }, caps, alice)
  assert.equal(misfit.message?.error?.code, -32602)
  assert.match(misfit.message?.error?.message ?? '', /inputResponses\.confirm\.content\/ok/)
  const unasked = await rawCall(url, { name: 'deploy', arguments: {}, requestState, inputResponses: { confirm: { action: 'decline' }, launch_missiles: { action: 'accept' } } }, caps, alice)
  assert.match(unasked.message?.error?.message ?? '', /no question "launch_missiles" was asked/)

  const retry = await rawCall(url, { name: 'deploy', arguments: {}, requestState, inputResponses: { confirm: { action: 'accept', content: { ok: true } } } }, caps, alice)
  const done = retry.message?.result as { resultType: string, content: Array<{ text: string }>, isError: boolean }
  assert.equal(done.resultType, 'complete', JSON.stringify(retry.message))
  assert.equal(done.isError, false)
  assert.equal(done.content[0]!.text, '{"told":{"action":"accept","content":{"ok":true}}}')
})

test('Tasks extension: a task handle, tasks/get shows the question, tasks/update answers it, the result comes in tasks/get', async (t) => {
  const { url } = await gateway(t, { MCP_TASK_AFTER_MS: '0' })
  const caps = { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } }
  const started = await rawCall(url, { name: 'slow_deploy', arguments: {} }, caps)
  const handle = started.message?.result as Record<string, unknown>
  assert.equal(handle.resultType, 'task', JSON.stringify(started.message))
  assert.equal(handle.status, 'working')
  assert.equal(typeof handle.pollIntervalMs, 'number')
  const taskId = handle.taskId as string
  const task = async (method: string, params: Record<string, unknown> = {}) => {
    const answer = await rawRpc(url, modernRequest(method, { taskId, ...params }), { ...modernHeaders(method), 'mcp-name': taskId })
    return answer.message
  }
  let polled = (await task('tasks/get'))?.result as Record<string, unknown>
  for (let i = 0; polled.status !== 'input_required' && i < 100; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    polled = (await task('tasks/get'))?.result as Record<string, unknown>
  }
  assert.equal(polled.status, 'input_required')
  assert.equal(polled.resultType, 'complete')
  assert.deepEqual(polled.inputRequests, CONFIRM)
  // A misfit answer is refused naming the field; keys not waiting are ignored, as SEP-2663 says.
  const misfit = await task('tasks/update', { inputResponses: { confirm: { action: 'accept', content: { ok: 3 } } } })
  assert.equal(misfit?.error?.code, -32602)
  assert.deepEqual((await task('tasks/update', { inputResponses: { never_asked: { action: 'accept' } } }))?.result, { resultType: 'complete', _meta: (await task('tasks/update', { inputResponses: {} }))?.result?._meta })
  assert.equal((await task('tasks/update', { inputResponses: { confirm: { action: 'accept', content: { ok: true } } } }))?.error, undefined)
  for (let i = 0; polled.status !== 'completed' && i < 100; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    polled = (await task('tasks/get'))?.result as Record<string, unknown>
  }
  assert.equal(polled.status, 'completed', JSON.stringify(polled))
  assert.deepEqual((polled.result as { content: unknown }).content, [{ type: 'text', text: '{"deployed":{"action":"accept","content":{"ok":true}}}' }])
  // The same task over REST: one record.
  const unknown = await rawRpc(url, modernRequest('tasks/get', { taskId: 'call_00000000-0000-0000-0000-000000000000' }), { ...modernHeaders('tasks/get'), 'mcp-name': 'call_00000000-0000-0000-0000-000000000000' })
  assert.equal(unknown.message?.error?.code, -32602)
})

test('Tasks extension: tasks/cancel stops the call (its signal fires) and the task reads cancelled; no task without the extension', async (t) => {
  const { url, aborted } = await gateway(t, { MCP_TASK_AFTER_MS: '0' })
  const caps = { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } }
  const handle = (await rawCall(url, { name: 'slow_deploy', arguments: {} }, caps)).message?.result as Record<string, unknown>
  const taskId = handle.taskId as string
  const send = async (method: string, params: Record<string, unknown> = {}) =>
    (await rawRpc(url, modernRequest(method, { taskId, ...params }), { ...modernHeaders(method), 'mcp-name': taskId })).message
  let polled = (await send('tasks/get'))?.result as Record<string, unknown>
  for (let i = 0; polled.status !== 'input_required' && i < 100; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    polled = (await send('tasks/get'))?.result as Record<string, unknown>
  }
  await send('tasks/update', { inputResponses: { confirm: { action: 'accept', content: { ok: true } } } })
  assert.equal((await send('tasks/cancel'))?.error, undefined)
  for (let i = 0; polled.status !== 'cancelled' && i < 100; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    polled = (await send('tasks/get'))?.result as Record<string, unknown>
  }
  assert.equal(polled.status, 'cancelled')
  assert.equal(aborted.count, 1)
  // Without the extension declared, the same call is answered in the request (here: its question).
  const plain = await rawCall(url, { name: 'slow_deploy', arguments: {} }, { elicitation: { form: {} } })
  assert.equal((plain.message?.result as Record<string, unknown>).resultType, 'input_required')
})

test('Tasks extension: before it becomes a task a call is its request\'s: progress on the request\'s stream, and a client that goes away cancels it', async (t) => {
  const { url, aborted } = await gateway(t, { MCP_TASK_AFTER_MS: '60000' })
  const caps = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
  const controller = new AbortController()
  const body = modernRequest('tools/call', { name: 'sleeper', arguments: {}, _meta: { progressToken: 'p1', 'io.modelcontextprotocol/clientCapabilities': caps } })
  const response = await fetch(url, { method: 'POST', signal: controller.signal, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...modernHeaders('tools/call'), 'mcp-name': 'sleeper' }, body: JSON.stringify(body) })
  const reader = response.body!.getReader()
  const { value } = await reader.read()
  assert.match(new TextDecoder().decode(value), /notifications\/progress[\s\S]*"message":"sleeping"/)
  controller.abort()
  const end = Date.now() + 5_000
  while (aborted.count === 0 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20))
  assert.equal(aborted.count, 1, 'the call ended with its request')
})
