// The terminal over HTTP: background processes belong to the API key whose call started them (another
// key can neither list, poll nor kill them), and GET /tools says when commands run unconfined.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from '../../helpers/app.ts'
import { ensureBubblewrap } from '../../helpers/bubblewrap.ts'

const ALICE = 'alice-key-6d2f9a41c7'
const BOB = 'bob-key-0e8b3c57f2'

function sha256 (text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

interface TestContext { after: (fn: () => Promise<void> | void) => void }

async function keyedApp (t: TestContext): Promise<FastifyInstance> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-term-keys-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const configPath = join(dir, 'gateway.yaml')
  await writeFile(configPath, [
    'auth:',
    '  keys:',
    `    - { name: alice, sha256: ${sha256(ALICE)} }`,
    `    - { name: bob, sha256: ${sha256(BOB)} }`,
    ''
  ].join('\n'))
  const { app } = await buildTestApp(t, { GATEWAY_CONFIG: configPath, GATEWAY_ENABLE_TERMINAL: 'true', TERMINAL_SANDBOX: 'none' }, { builtins: true })
  return app
}

async function dispatch (app: FastifyInstance, key: string, tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await app.inject({ method: 'POST', url: `/dispatch/${tool}`, headers: { authorization: `Bearer ${key}` }, payload: args })
  assert.equal(response.statusCode, 200, response.body)
  const body = response.json()
  return { ...JSON.parse(body.content), outcome: body.status }
}

test('a background process is listed, polled and killed only by the key that started it', async (t) => {
  const app = await keyedApp(t)
  const started = await dispatch(app, ALICE, 'terminal', { command: 'echo alice-output; sleep 300', background: true })
  assert.equal(started.outcome, 'ok')
  const id = started.id as string

  const bobList = await dispatch(app, BOB, 'process', { action: 'list' })
  assert.deepEqual(bobList.processes, [], 'another key sees none of them, command lines included')
  for (const action of ['poll', 'kill']) {
    const refused = await dispatch(app, BOB, 'process', { action, id })
    assert.equal(refused.outcome, 'error', action)
    assert.match(refused.error as string, new RegExp(`unknown process id "${id}"; no background process has been started`), action)
    assert.deepEqual(refused.known_ids, [], action)
  }
  const bobStarted = await dispatch(app, BOB, 'terminal', { command: 'sleep 300', background: true })
  const bobOwn = await dispatch(app, BOB, 'process', { action: 'list' })
  assert.deepEqual((bobOwn.processes as Array<{ id: string }>).map((p) => p.id), [bobStarted.id])

  const aliceList = await dispatch(app, ALICE, 'process', { action: 'list' })
  const mine = aliceList.processes as Array<{ id: string, status: string, command: string }>
  assert.deepEqual(mine.map((p) => [p.id, p.status, p.command]), [[id, 'running', 'echo alice-output; sleep 300']])
  const polled = await dispatch(app, ALICE, 'process', { action: 'poll', id, since: 0 })
  assert.equal(polled.outcome, 'ok')
  assert.match(polled.output as string, /alice-output/)
  assert.equal((await dispatch(app, ALICE, 'process', { action: 'kill', id })).status, 'killed')
})

test('GET /tools says the terminal is unconfined when commands run without the sandbox', async (t) => {
  const { app } = await buildTestApp(t, { GATEWAY_ENABLE_TERMINAL: 'true', TERMINAL_SANDBOX: 'none' }, { builtins: true })
  const tools = (await app.inject({ method: 'GET', url: '/tools?toolset=terminal' })).json().tools as Array<{ name: string, available: boolean, reason: string | null }>
  assert.deepEqual(tools.map((tool) => tool.name), ['process', 'terminal'])
  for (const tool of tools) {
    assert.equal(tool.available, true, tool.name)
    assert.match(tool.reason ?? '', /unconfined: commands run without a sandbox \(TERMINAL_SANDBOX=none\)/, tool.name)
  }
  const detail = (await app.inject({ method: 'GET', url: '/tools/terminal' })).json()
  assert.match(detail.reason, /unconfined/)
})

test('GET /tools reports no note for a sandboxed terminal (as root too: commands run as terminal.user), and TERMINAL_SANDBOX=bwrap without bubblewrap makes it unavailable', { skip: process.platform !== 'linux' && 'bubblewrap exists only on Linux' }, async (t) => {
  ensureBubblewrap()
  const { app } = await buildTestApp(t, { GATEWAY_ENABLE_TERMINAL: 'true', TERMINAL_SANDBOX: 'bwrap' }, { builtins: true })
  const detail = (await app.inject({ method: 'GET', url: '/tools/terminal' })).json()
  assert.equal(detail.available, true)
  assert.equal(detail.reason, null)

  // A PATH without bwrap: the gateway looks it up on its own PATH.
  const path = process.env.PATH
  process.env.PATH = '/nonexistent'
  t.after(() => { process.env.PATH = path })
  const missing = await buildTestApp(t, { GATEWAY_ENABLE_TERMINAL: 'true', TERMINAL_SANDBOX: 'bwrap' }, { builtins: true })
  const unavailable = (await missing.app.inject({ method: 'GET', url: '/tools/terminal' })).json()
  assert.equal(unavailable.available, false)
  assert.match(unavailable.reason, /TERMINAL_SANDBOX=bwrap but bubblewrap cannot run/)
  process.env.PATH = path
  const call = await missing.app.inject({ method: 'POST', url: '/dispatch/terminal', payload: { command: 'echo hi' } })
  assert.equal(call.json().status, 'unavailable')
})

test('TERMINAL_SANDBOX accepts auto, bwrap and none only', async (t) => {
  await assert.rejects(buildTestApp(t, { TERMINAL_SANDBOX: 'docker' }), /terminal\.sandbox.*TERMINAL_SANDBOX/)
})
