// `tool-gateway --stdio` with clients no one here wrote: the SDK v2 and v1 stdio clients launch the
// real command (the package's bin, or `node src/server.ts`) as a child process, with a temp
// workspace and config: list, call, errors, selection, pagination, progress, cancellation,
// list_changed; and by hand over the pipes: stdout purity, exits, bad options.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { once } from 'node:events'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js'
import { buildTestApp } from '../helpers/app.ts'
import {
  BIN, PLUGIN, SERVER, exitOf, initialize, launch, listeningPorts, processesWith, sandbox, waitFor, type Sandbox
} from '../helpers/stdio-gateway.ts'

interface TestContext { after: (fn: () => Promise<void> | void) => void }

async function connectV2 (t: TestContext, box: Sandbox, args: string[] = []): Promise<{ client: Client, transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, '--stdio', ...args], env: box.env, cwd: box.dir, stderr: 'pipe' })
  const client = new Client({ name: 'stdio-test', version: '1' })
  await client.connect(transport)
  t.after(() => client.close())
  return { client, transport }
}

async function connectV1 (t: TestContext, box: Sandbox, args: string[] = []): Promise<ClientV1> {
  const transport = new TransportV1({ command: process.execPath, args: [SERVER, '--stdio', ...args], env: box.env, cwd: box.dir, stderr: 'pipe' })
  const client = new ClientV1({ name: 'stdio-test-v1', version: '1' })
  await client.connect(transport)
  t.after(() => client.close())
  return client
}

function textOf (result: unknown): string {
  const content = (result as { content: Array<{ type: string, text?: string }> }).content
  assert.equal(content.length, 1)
  return content[0].text ?? ''
}

test('the v2 client launches the bin: built-in tools with annotations, a real file read, a tool error as REST words it, an unknown tool; no port is opened', async (t) => {
  const box = await sandbox(t)
  const { client, transport } = await connectV2(t, box)
  const { tools } = await client.listTools()
  const names = tools.map((tool) => tool.name)
  for (const name of ['read_file', 'write_file', 'terminal', 'count_up', 'always_fails']) assert.ok(names.includes(name), `${name} in ${names.join(', ')}`)
  assert.deepEqual(tools.find((tool) => tool.name === 'read_file')?.annotations, { title: 'Read file', readOnlyHint: true, openWorldHint: false })
  assert.equal(tools.find((tool) => tool.name === 'write_file')?.annotations?.destructiveHint, true)

  const read = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } })
  assert.equal(read.isError, false)
  assert.match(textOf(read), /2\|second line/)
  assert.equal(textOf(await client.callTool({ name: 'whoami', arguments: {} })), 'principal=stdio')

  const failed = await client.callTool({ name: 'always_fails', arguments: {} })
  assert.equal(failed.isError, true)
  // The same plugin behind REST, without its prints (this process's stdout is the test runner's).
  const restConfig = join(box.dir, 'rest.json')
  await writeFile(restConfig, JSON.stringify({ plugins: [PLUGIN] }))
  const rest = await buildTestApp(t, { GATEWAY_CONFIG: restConfig, LOG_LEVEL: 'silent' })
  const http = await rest.app.inject({ method: 'POST', url: '/dispatch/always_fails', payload: {} })
  assert.deepEqual(failed.content, [{ type: 'text', text: http.json().content }])
  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /Unknown tool/)

  // The check sees a listening socket when there is one (this process's), and none in the gateway.
  const probe = createServer().listen(0, '127.0.0.1')
  await once(probe, 'listening')
  t.after(() => { probe.close() })
  assert.ok(listeningPorts(process.pid).includes((probe.address() as { port: number }).port))
  assert.deepEqual(listeningPorts(transport.pid!), [])
})

test('the v1 client pages through tools/list with nextCursor (mcp.pageSize), the v2 client gets the same list, and both call', async (t) => {
  const box = await sandbox(t, { mcp: { pageSize: 3 } })
  const v1 = await connectV1(t, box)
  const pages: string[][] = []
  let cursor: string | undefined
  do {
    const page = await v1.listTools(cursor === undefined ? {} : { cursor })
    pages.push(page.tools.map((tool) => tool.name))
    cursor = page.nextCursor
  } while (cursor !== undefined)
  const all = pages.flat()
  assert.ok(pages.length >= 3, `${pages.length} pages`)
  assert.ok(pages.slice(0, -1).every((page) => page.length === 3), JSON.stringify(pages))
  assert.deepEqual(all, [...new Set(all)].sort())
  const read = await v1.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } })
  assert.match(textOf(read), /first line/)
  await assert.rejects(v1.callTool({ name: 'no_such_tool', arguments: {} }), /Unknown tool/)

  const { client } = await connectV2(t, box)
  assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), all)
})

test('--toolsets and --disabled narrow both the list and what may be called', async (t) => {
  const box = await sandbox(t)
  const files = await connectV2(t, box, ['--toolsets', 'file'])
  assert.deepEqual((await files.client.listTools()).tools.map((tool) => tool.name), ['patch', 'read_file', 'search_files', 'write_file'])
  await assert.rejects(files.client.callTool({ name: 'count_up', arguments: {} }), /Unknown tool/)

  const withoutFixture = await connectV1(t, box, ['--disabled', 'fixture,terminal'])
  const names = (await withoutFixture.listTools()).tools.map((tool) => tool.name)
  assert.ok(names.includes('read_file'))
  assert.ok(!names.some((name) => ['count_up', 'always_fails', 'terminal', 'process'].includes(name)), names.join(', '))
  await assert.rejects(withoutFixture.callTool({ name: 'terminal', arguments: { command: 'true' } }), /Unknown tool/)
})

test('progress reaches the client that gave a token, and tools/list_changed follows a registry change', async (t) => {
  const box = await sandbox(t)
  const { client } = await connectV2(t, box)
  const progress: unknown[] = []
  const counted = await client.callTool({ name: 'count_up', arguments: {} }, { onprogress: (update) => { progress.push(update) } })
  assert.equal(textOf(counted), 'counted to 3')
  assert.deepEqual(progress, [1, 2, 3].map((step) => ({ progress: step, total: 3, message: `step ${step}` })))

  const changed = Promise.withResolvers<void>()
  client.setNotificationHandler('notifications/tools/list_changed', () => { changed.resolve() })
  await client.callTool({ name: 'add_tool', arguments: { name: 'added_later' } })
  await changed.promise
  assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'added_later'))
  assert.equal(textOf(await client.callTool({ name: 'added_later', arguments: {} })), 'added tool ran')
})

test('notifications/cancelled from the v1 client kills the terminal command; the gateway serves on', async (t) => {
  const box = await sandbox(t)
  const client = await connectV1(t, box)
  const marker = `sleep 30.${process.pid}1`
  const controller = new AbortController()
  const call = client.callTool({ name: 'terminal', arguments: { command: marker } }, undefined, { signal: controller.signal })
  await waitFor(() => processesWith(marker).length > 0, `${marker} to start`)
  controller.abort(new Error('enough'))
  await assert.rejects(call, /enough/)
  await waitFor(() => processesWith(marker).length === 0, `${marker} to be killed`)
  assert.match(textOf(await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } })), /first line/)
})

test('stdout carries only JSON-RPC, even with debug logging and a plugin printing with console.log; the prints go to stderr', async (t) => {
  const box = await sandbox(t, {}, { LOG_LEVEL: 'debug' })
  const gateway = launch(t, box, SERVER, ['--stdio'])
  await initialize(gateway)
  gateway.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
  gateway.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'count_up', arguments: {}, _meta: { progressToken: 'p' } } })
  gateway.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } })
  await gateway.answer(2)
  assert.equal(((await gateway.answer(3)).result as { isError: boolean }).isError, false)
  assert.match(JSON.stringify((await gateway.answer(4)).error), /Unknown tool/)
  gateway.child.stdin!.end()
  assert.deepEqual(await exitOf(gateway), { code: 0, signal: null })
  const lines = gateway.stdout().split('\n')
  assert.equal(lines.pop(), '', 'stdout ends with a newline')
  for (const line of lines) assert.equal((JSON.parse(line) as { jsonrpc?: string }).jsonrpc, '2.0', line)
  assert.ok(lines.filter((line) => line.includes('notifications/progress')).length === 3, gateway.stdout())
  assert.match(gateway.stderr(), /stdio-plugin: loaded, printing to stdout/)
  assert.match(gateway.stderr(), /stdio-plugin: step 3/)
  assert.match(gateway.stderr(), /"level":20/, 'debug lines are logged, to stderr')
})

test('closing stdin cancels the calls still running (the command is killed) and exits 0', async (t) => {
  const box = await sandbox(t)
  const gateway = launch(t, box, BIN, ['--stdio'])
  await initialize(gateway)
  const marker = `sleep 30.${process.pid}2`
  gateway.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'terminal', arguments: { command: marker } } })
  await waitFor(() => processesWith(marker).length > 0, `${marker} to start`)
  gateway.child.stdin!.end()
  assert.deepEqual(await exitOf(gateway), { code: 0, signal: null })
  await waitFor(() => processesWith(marker).length === 0, `${marker} to be killed`)
  assert.match(gateway.stderr(), /"signal":"end of input","msg":"shutting down"/)
})

test('SIGTERM drains: new calls are refused, the call in flight still gets its answer, then the process exits 0', async (t) => {
  const box = await sandbox(t)
  const gateway = launch(t, box, SERVER, ['--stdio'])
  await initialize(gateway)
  const marker = `sleep 1.${process.pid}3`
  gateway.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'terminal', arguments: { command: marker } } })
  await waitFor(() => processesWith(marker).length > 0, `${marker} to start`)
  gateway.child.kill('SIGTERM')
  await waitFor(() => gateway.stderr().includes('draining'), 'the drain to begin')
  gateway.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'read_file', arguments: { path: 'notes.txt' } } })
  assert.match(JSON.stringify((await gateway.answer(3)).error), /the gateway is shutting down/)
  assert.deepEqual(await exitOf(gateway), { code: 0, signal: null })
  const answer = await gateway.answer(2)
  assert.equal((answer.result as { isError: boolean }).isError, false, JSON.stringify(answer))
  assert.match(gateway.stderr(), /"signal":"SIGTERM","msg":"shutting down"/)
})

test('a bad command line exits 2 naming what was wrong, with nothing on stdout', async (t) => {
  const box = await sandbox(t)
  const cases: Array<[string[], RegExp]> = [
    [['--bogus'], /Unknown option '--bogus'[\s\S]*usage: tool-gateway/],
    [['--toolsets', 'file'], /--toolsets applies only with --stdio/],
    [['--stdio', '--toolsets', ''], /--toolsets names no toolset/],
    [['--stdio', '--toolsets', 'file,nope'], /Unknown toolset: "nope"\. Valid toolsets: .*\bfile\b/],
    [['--stdio', '--disabled', 'nope'], /Unknown toolset: "nope"/]
  ]
  for (const [args, expected] of cases) {
    const gateway = launch(t, box, BIN, args)
    assert.deepEqual(await exitOf(gateway), { code: 2, signal: null }, args.join(' '))
    assert.match(gateway.stderr(), expected)
    assert.equal(gateway.stdout(), '', args.join(' '))
  }
})

test('the bin refuses a Node older than engines, saying which is needed', async (t) => {
  const box = await sandbox(t)
  const older = 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"22.9.0"})'
  const gateway = launch(t, box, BIN, ['--stdio'], ['--import', older])
  assert.deepEqual(await exitOf(gateway), { code: 1, signal: null })
  assert.match(gateway.stderr(), /^tool-gateway: Node\.js 24\.11\.0 or later is required; this is Node\.js 22\.9\.0/)
  assert.equal(gateway.stdout(), '')
})
