// `tool-gateway --stdio` in revision 2026-07-28: the SDK 2.4 stdio client pinned to the revision,
// and in `auto` mode (which probes with server/discover first), launch the real command; list, call,
// progress, cancellation by notifications/cancelled, subscriptions/listen; a 2025 client of the same
// command is served as before (stdio.test.ts); and the first message spoken by hand.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { BIN, launch, processesWith, sandbox, waitFor, type Sandbox } from '../helpers/stdio-gateway.ts'
import { modernRequest, REVISION } from './helpers/modern.ts'

interface TestContext { after: (fn: () => Promise<void> | void) => void }

async function connect (t: TestContext, box: Sandbox, mode: 'auto' | { pin: string }): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, '--stdio'], env: box.env, cwd: box.dir, stderr: 'pipe' })
  const client = new Client({ name: 'stdio-modern', version: '1' }, { versionNegotiation: { mode } })
  await client.connect(transport)
  t.after(() => client.close())
  return client
}

function textOf (result: unknown): string {
  return (result as { content: Array<{ text?: string }> }).content[0]?.text ?? ''
}

test('the SDK 2.4 client pinned to 2026-07-28 over stdio: list, a real file read, progress, list changes on a listen', async (t) => {
  const box = await sandbox(t)
  const client = await connect(t, box, { pin: REVISION })
  assert.equal(client.getNegotiatedProtocolVersion(), REVISION)
  const names = (await client.listTools()).tools.map((tool) => tool.name)
  assert.ok(names.includes('read_file') && names.includes('count_up'), names.join(','))
  assert.match(textOf(await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } })), /first line/)
  const progress: unknown[] = []
  await client.callTool({ name: 'count_up', arguments: {} }, { onprogress: (update) => { progress.push(update) } })
  assert.deepEqual(progress, [1, 2, 3].map((step) => ({ progress: step, total: 3, message: `step ${step}` })))

  let changes = 0
  client.setNotificationHandler('notifications/tools/list_changed', () => { changes++ })
  const subscription = await client.listen({ toolsListChanged: true })
  assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true })
  await client.callTool({ name: 'add_tool', arguments: { name: 'added_later' } })
  await waitFor(() => changes > 0, 'notifications/tools/list_changed on the listen')
  assert.equal(textOf(await client.callTool({ name: 'added_later', arguments: {} })), 'added tool ran')
})

test('auto mode over stdio settles on 2026-07-28; cancelling a call kills its command', async (t) => {
  const box = await sandbox(t)
  const client = await connect(t, box, 'auto')
  assert.equal(client.getNegotiatedProtocolVersion(), REVISION)
  const marker = `sleep 30.${process.pid}7`
  const controller = new AbortController()
  const call = client.callTool({ name: 'terminal', arguments: { command: marker } }, { signal: controller.signal })
  await waitFor(() => processesWith(marker).length > 0, `${marker} to start`)
  controller.abort(new Error('enough'))
  await assert.rejects(call, /enough/)
  await waitFor(() => processesWith(marker).length === 0, `${marker} to be killed`)
  assert.match(textOf(await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } })), /first line/)
})

test('by hand: server/discover first, then modern requests; an unknown revision is named with what is supported', async (t) => {
  const box = await sandbox(t)
  const gateway = launch(t, box, BIN, ['--stdio'])
  gateway.send(modernRequest('server/discover', {}, REVISION, 1))
  const discover = (await gateway.answer(1)).result as Record<string, unknown>
  assert.deepEqual(discover.supportedVersions, [REVISION])
  assert.equal(discover.resultType, 'complete')
  assert.deepEqual(discover.capabilities, { tools: { listChanged: true } })
  gateway.send(modernRequest('tools/call', { name: 'read_file', arguments: { path: 'notes.txt' } }, REVISION, 2))
  const read = (await gateway.answer(2)).result as Record<string, unknown>
  assert.equal(read.resultType, 'complete')
  assert.match(JSON.stringify(read.content), /first line/)
  gateway.send(modernRequest('tools/list', {}, '2099-01-01', 3))
  const refused = (await gateway.answer(3)).error as { code: number, data: { supported: string[] } }
  assert.equal(refused.code, -32022)
  assert.deepEqual(refused.data.supported, [REVISION])
  gateway.send(modernRequest('ping', {}, REVISION, 4))
  assert.equal(((await gateway.answer(4)).error as { code: number }).code, -32601)
})

for (const mode of [{ pin: REVISION }, 'legacy'] as const) {
  test(`a tool's question over stdio (${typeof mode === 'string' ? '2025-11-25' : REVISION}): the SDK client's elicitation handler answers it, and the tool gets the answer`, async (t) => {
    const box = await sandbox(t)
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, '--stdio'], env: box.env, cwd: box.dir, stderr: 'pipe' })
    const client = new Client({ name: 'stdio-questions', version: '1' }, { versionNegotiation: { mode }, capabilities: { elicitation: { form: {} } } })
    const asked: string[] = []
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message: string }).message)
      return { action: 'accept', content: { ok: true } }
    })
    await client.connect(transport)
    t.after(() => client.close())
    assert.equal(textOf(await client.callTool({ name: 'confirm_deploy', arguments: {} })), '{"action":"accept","content":{"ok":true}}')
    assert.deepEqual(asked, ['Deploy to prod?'])
  })
}
