// Calls made with `Prefer: respond-async` across two replicas of the real gateway (two
// `node src/server.ts` processes) sharing one redis-server and one workspace: a call started on one
// is followed on the other, cancelled from the other (its command dies where it runs), hidden from
// another API key on either, and when the replica running it is killed mid-call, the other answers
// `lost` once its lease lapses instead of `running` forever.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { killGroup, waitGroupGone } from '../../tools/terminal/lib/process-group.ts'
import { startRedis } from '../helpers/redis-server.ts'
import { listeningPort, startServer, type ServerProcess } from '../helpers/server-process.ts'

const KEYS = ['alice', 'bob']
const LEASE_MS = 1_500
const REQUEST_TIMEOUT_MS = 15_000

interface Replica { base: string, server: ServerProcess }
interface Answer { status: number, headers: Headers, body: any }

let replicas: Replica[]
let workspace: string
const groups: number[] = []
const cleanups: Array<() => Promise<void> | void> = []
const context = { after: (fn: () => Promise<void> | void) => { cleanups.push(fn) } }
after(async () => {
  // A command of the killed replica outlives it: its process group goes here.
  for (const pgid of groups) await killGroup(pgid, 500).catch(() => {})
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')

async function send (url: string, key: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers as Record<string, string> }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
  const text = await response.text()
  const json = (response.headers.get('content-type') ?? '').includes('json')
  return { status: response.status, headers: response.headers, body: json ? JSON.parse(text) : text }
}

async function startAsync (replica: Replica, key: string, command: string): Promise<Answer> {
  const answer = await send(`${replica.base}/dispatch/terminal`, key, {
    method: 'POST',
    headers: { 'content-type': 'application/json', prefer: 'respond-async' },
    body: JSON.stringify({ command, timeout: 120 })
  })
  assert.equal(answer.status, 202, JSON.stringify(answer.body))
  return answer
}

/** The process group a command wrote to `file` in the shared workspace. */
async function groupIn (file: string): Promise<number> {
  for (let i = 0; i < 500; i++) {
    const pgid = Number((await readFile(join(workspace, file), 'utf8').catch(() => '')).trim())
    if (pgid > 0) {
      groups.push(pgid)
      return pgid
    }
    await sleep(20)
  }
  throw new Error(`${file} was never written`)
}

before(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'gw-calls-replicas-'))
  context.after(() => rm(workspace, { recursive: true, force: true }))
  const configPath = join(workspace, '.gateway.yaml')
  await writeFile(configPath, `auth:\n  keys:\n${KEYS.map((key) => `    - { name: ${key}, sha256: ${sha256(key)} }\n`).join('')}`)
  const redis = await startRedis(context)
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: workspace,
    WORKSPACE_ROOT: workspace,
    PORT: '0',
    GATEWAY_CONFIG: configPath,
    REDIS_URL: redis.url,
    REDIS_COMMAND_TIMEOUT_MS: '5000',
    GATEWAY_ENABLE_TERMINAL: 'true',
    TERMINAL_SANDBOX: 'none',
    CALLS_LEASE_MS: String(LEASE_MS),
    LOG_LEVEL: 'info'
  }
  const servers = [startServer(context, env), startServer(context, env)]
  const ports = await Promise.all(servers.map(listeningPort))
  replicas = servers.map((server, i) => ({ base: `http://127.0.0.1:${ports[i]}`, server }))
})

test('a call started on one replica is followed to its end on the other', async () => {
  const started = await startAsync(replicas[0], 'alice', 'sleep 1; echo done')
  const location = started.headers.get('location') as string
  const running = await send(`${replicas[1].base}${location}`, 'alice')
  assert.equal(running.status, 202, JSON.stringify(running.body))
  assert.equal(running.body.status, 'running')
  let done = await send(`${replicas[1].base}${location}?wait=10`, 'alice')
  if (done.status === 202) done = await send(`${replicas[1].base}${location}?wait=10`, 'alice')
  assert.equal(done.status, 200, JSON.stringify(done.body))
  assert.equal(done.body.ok, true)
  assert.equal(JSON.parse(done.body.content).output, 'done\n')
  for (const replica of replicas) {
    const foreign = await send(`${replica.base}${location}`, 'bob')
    assert.equal(foreign.status, 404)
    assert.equal(foreign.body.code, 'GW_ERR_CALL_NOT_FOUND')
  }
})

test('a cancel from the other replica kills the command where it runs', async () => {
  const started = await startAsync(replicas[0], 'alice', 'echo $$ > cancel-pgid; sleep 60 & sleep 60; wait')
  const pgid = await groupIn('cancel-pgid')
  const cancelled = await send(`${replicas[1].base}${started.headers.get('location') as string}`, 'alice', { method: 'DELETE' })
  assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body))
  assert.equal(cancelled.body.status, 'cancelled')
  assert.equal(cancelled.headers.get('x-call-status'), 'cancelled')
  assert.equal(await waitGroupGone(pgid, 5_000), true, 'the command and its children died')
})

test('the replica running a call is killed: the other answers lost once the lease lapses', async () => {
  const started = await startAsync(replicas[0], 'alice', 'echo $$ > lost-pgid; sleep 30')
  await groupIn('lost-pgid')
  const location = started.headers.get('location') as string
  assert.equal((await send(`${replicas[1].base}${location}`, 'alice')).body.status, 'running')
  replicas[0].server.child.kill('SIGKILL')
  await replicas[0].server.exited
  const began = performance.now()
  let answer = await send(`${replicas[1].base}${location}?wait=10`, 'alice')
  while (answer.status === 202 && performance.now() - began < 10_000) answer = await send(`${replicas[1].base}${location}?wait=10`, 'alice')
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  assert.equal(answer.body.status, 'lost')
  assert.match(answer.body.error, /the replica that ran it stopped/)
  assert.ok(performance.now() - began < LEASE_MS + 3_000, `lost after ${performance.now() - began} ms`)
  assert.equal(answer.headers.get('x-call-status'), 'lost')
})
