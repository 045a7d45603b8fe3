import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, mkdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../../src/app/app.ts'
import { loadConfig } from '../../src/config/load.ts'
import { createGateway } from '../../src/core/gateway.ts'
import { McpManager } from '../../src/mcp-client/manager.ts'
import { ToolRegistry } from '../../src/registry/registry.ts'
import { captureLogger } from '../helpers/logger.ts'
import { createMcpHarness, everythingConfig, type McpHarness } from './helpers/harness.ts'
import { childProcesses } from './helpers/processes.ts'

let h: McpHarness

before(async () => {
  process.env.GATEWAY_TEST_SECRET = 'must-not-leak'
  h = await createMcpHarness({ everything: everythingConfig({ env: { FROM_CONFIG: 'yes' } }) })
  h.manager.start()
  await h.manager.ready()
})

after(async () => {
  await h.manager.stop()
  delete process.env.GATEWAY_TEST_SECRET
})

test('server-everything tools register as mcp__everything__*, in toolset mcp-everything with alias everything', () => {
  const snapshot = h.registry.snapshot()
  for (const name of ['mcp__everything__echo', 'mcp__everything__get_sum', 'mcp__everything__get_structured_content', 'mcp__everything__get_tiny_image']) {
    const entry = snapshot.tools.get(name)
    assert.ok(entry, `${name} is registered`)
    assert.equal(entry.toolset, 'mcp-everything')
    assert.deepEqual(entry.origin, { kind: 'mcp', server: 'everything' })
    assert.equal(entry.timeoutMs, 60_000)
    assert.equal(entry.schema.parameters.type, 'object')
  }
  assert.equal(snapshot.aliases.get('everything'), 'mcp-everything')
  assert.match(snapshot.tools.get('mcp__everything__echo')!.description, /echo/i)
  const [status] = h.manager.states()
  assert.equal(status.server, 'everything')
  assert.equal(status.toolset, 'mcp-everything')
  assert.equal(status.state, 'connected')
  assert.equal(status.transport, 'stdio')
  assert.equal(status.tools, [...snapshot.tools.values()].filter((e) => e.toolset === 'mcp-everything').length)
  assert.ok(!Number.isNaN(Date.parse(status.since)))
})

test('a call round-trips through the dispatcher: echo, coerced arguments, structured content, an image', async () => {
  const echo = await h.call('mcp__everything__echo', { message: 'héllo' })
  assert.equal(echo.status, 'ok')
  assert.equal(echo.content, 'Echo: héllo')

  const sum = await h.call('mcp__everything__get_sum', '{"a": "2", "b": "3"}')
  assert.equal(sum.status, 'ok', sum.content)
  assert.match(sum.content, /5/)

  const structured = await h.call('mcp__everything__get_structured_content', { location: 'Chicago' })
  assert.equal(structured.status, 'ok')
  const parsed = JSON.parse(structured.content) as Record<string, unknown>
  assert.equal(typeof parsed.temperature, 'number', 'structuredContent is the content, as JSON')

  const { outcome: image, inlineMedia } = await h.answer('mcp__everything__get_tiny_image', {})
  assert.equal(image.status, 'ok')
  // This harness keeps no results: the image is named, and carried for the answers that inline it.
  assert.match(image.content, /\[image 0: image\/png, \d+ bytes; not kept by the gateway\]/)
  assert.equal(image.media?.[0].mimeType, 'image/png')
  const png = Buffer.from(inlineMedia?.[0].data ?? '', 'base64')
  assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG', 'the bytes are the PNG the server sent')
  assert.equal(png.length, image.media?.[0].bytes)
})

test('arguments are validated by the gateway: a missing required argument never reaches the server', async () => {
  const { outcome, httpStatus } = await h.answer('mcp__everything__echo', {})
  assert.equal(outcome.status, 'invalid')
  assert.equal(httpStatus, 400)
  assert.match(outcome.content, /\/message: is required/)
})

test('utility tools list and read resources and prompts', async () => {
  const listed = await h.call('mcp__everything__list_resources', {})
  assert.equal(listed.status, 'ok', listed.content)
  const { resources } = JSON.parse(listed.content) as { resources: Array<{ uri: string, mimeType?: string }> }
  assert.ok(resources.length > 0)
  const text = resources.find((r) => r.mimeType?.startsWith('text/'))!
  const read = await h.call('mcp__everything__read_resource', { uri: text.uri })
  assert.equal(read.status, 'ok', read.content)
  assert.ok(read.content.startsWith(`[resource: ${text.uri}`))

  const prompts = JSON.parse((await h.call('mcp__everything__list_prompts', {})).content) as { prompts: Array<{ name: string }> }
  assert.ok(prompts.prompts.some((p) => p.name === 'args-prompt'))
  const prompt = await h.call('mcp__everything__get_prompt', { name: 'args-prompt', arguments: { city: 'Paris', state: 7 } })
  assert.equal(prompt.status, 'ok', prompt.content)
  assert.match(prompt.content, /Paris/)
})

test('the child gets a minimal environment plus its own env, nothing else', async () => {
  const outcome = await h.call('mcp__everything__get_env', {})
  assert.equal(outcome.status, 'ok')
  const env = JSON.parse(outcome.content) as Record<string, string>
  assert.equal(env.FROM_CONFIG, 'yes')
  assert.equal(env.GATEWAY_TEST_SECRET, undefined)
  const allowed = new Set(['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'TZ', 'USER', 'FROM_CONFIG'])
  assert.deepEqual(Object.keys(env).filter((name) => !allowed.has(name)), [])
})

test('child stderr is logged at debug, tagged with the server', () => {
  const lines = h.log.lines().filter((l) => l.msg === 'MCP server stderr')
  assert.ok(lines.length > 0)
  assert.equal(lines[0].level, 20)
  assert.equal(lines[0].server, 'everything')
  assert.match(String(lines[0].stderr), /Starting/)
})

test('over HTTP: POST /dispatch and GET /definitions see the MCP tools', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-mcp-app-'))
  await mkdir(join(dir, 'no-tools'))
  const config = await loadConfig({ env: { TOOLS_DIR: join(dir, 'no-tools'), WORKSPACE_ROOT: join(dir, 'ws'), LOG_LEVEL: 'silent' }, cwd: dir })
  const { logger } = captureLogger('silent')
  const gateway = createGateway(config, logger)
  const manager = new McpManager({ servers: { everything: everythingConfig() }, registry: gateway.registry, logger })
  manager.start()
  await manager.ready()
  const app = await buildApp(config, { gateway, logger })
  t.after(async () => {
    await app.close()
    await manager.stop()
    await rm(dir, { recursive: true, force: true })
  })
  const response = await app.inject({ method: 'POST', url: '/dispatch/mcp__everything__echo', payload: { message: 'over http' } })
  assert.equal(response.statusCode, 200)
  const envelope = response.json() as { ok: boolean, content: string }
  assert.equal(envelope.ok, true)
  assert.equal(envelope.content, 'Echo: over http')
  const definitions = await app.inject({ method: 'GET', url: '/definitions?toolsets=everything' })
  assert.equal(definitions.statusCode, 200, definitions.body)
  const names = (definitions.json() as Array<{ function: { name: string } }>).map((d) => d.function.name)
  assert.ok(names.includes('mcp__everything__echo'))
  const tools = await app.inject({ method: 'GET', url: '/tools/mcp__everything__echo' })
  assert.deepEqual((tools.json() as { origin: unknown }).origin, { kind: 'mcp', server: 'everything' })
})

test('stop() leaves no child behind', async () => {
  const manager = new McpManager({ servers: { one: everythingConfig() }, registry: new ToolRegistry(), logger: captureLogger('silent').logger })
  manager.start()
  await manager.ready()
  const pid = manager.connection('one')!.pid
  assert.ok(pid !== undefined && childProcesses().some((c) => c.pid === pid), 'the child runs')
  await manager.stop()
  assert.ok(!childProcesses().some((c) => c.pid === pid), 'the child is gone, not even a zombie')
  assert.equal(manager.states()[0].state, 'closed')
})
