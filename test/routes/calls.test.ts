// Calls that outlive their request, over REST in one app (memory store): `Prefer: respond-async`
// answers 202 with Location and Preference-Applied, GET /calls/:id follows the call (progress,
// ?wait= returning on a change, capped and saying so, a bad wait named), DELETE cancels it (the
// handler's signal fires; a real unconfined terminal command dies), a question makes it
// input_required until POST /calls/:id/input answers it (checked, naming the field), another
// caller's call and an unknown one are the same 404, outcomes expire, each caller has a limit of
// calls running, an Idempotency-Key keeps the 202, and a batch runs on as one call.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import { toolResult } from '../../src/registry/tool-result.ts'
import { isGroupAlive, waitGroupGone } from '../../tools/terminal/lib/process-group.ts'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

type T = Parameters<typeof buildTestApp>[0]
const sha = (key: string): string => createHash('sha256').update(key).digest('hex')
const ASYNC = { prefer: 'respond-async' }

interface Fixtures { app: FastifyInstance, runs: () => number, open: () => void, aborted: Promise<unknown> }

/** `slow` reports progress, then waits until the test opens its gate (or its signal fires); `ask` asks a question. */
async function appWithTools (t: T, env: Record<string, string> = {}): Promise<Fixtures> {
  const { app } = await buildTestApp(t, env)
  let runs = 0
  const gate = Promise.withResolvers<void>()
  const aborted = Promise.withResolvers<unknown>()
  app.gateway.registry.register(fixtureTool('slow', {
    handler: async (_args, ctx) => {
      runs++
      ctx.reportProgress?.({ progress: 1, total: 2, message: 'half way' })
      ctx.signal.addEventListener('abort', () => aborted.resolve(ctx.signal.reason), { once: true })
      await Promise.race([gate.promise, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))])
      return toolResult({ done: true, run: runs })
    }
  }))
  app.gateway.registry.register(fixtureTool('ask', {
    handler: async (_args, ctx) => {
      const answers = await ctx.ask!({
        confirm: { method: 'elicitation/create', params: { message: 'Deploy to prod?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } }
      })
      return toolResult({ answers })
    }
  }))
  return { app, runs: () => runs, open: () => gate.resolve(), aborted: aborted.promise }
}

async function post (app: FastifyInstance, tool: string, body: object, headers: Record<string, string> = {}) {
  return await app.inject({ method: 'POST', url: `/dispatch/${tool}`, payload: body, headers })
}

async function follow (app: FastifyInstance, location: string, headers: Record<string, string> = {}) {
  return await app.inject({ method: 'GET', url: location, headers })
}

test('Prefer: respond-async answers 202 at once with Location and Preference-Applied; GET shows progress, then the envelope', async (t) => {
  const { app, open } = await appWithTools(t)
  const started = await post(app, 'slow', {}, ASYNC)
  assert.equal(started.statusCode, 202, started.body)
  const body = started.json()
  assert.match(body.callId, /^call_[0-9a-f-]{36}$/)
  assert.equal(body.status, 'running')
  assert.equal(body.tool, 'slow')
  assert.equal(started.headers.location, `/calls/${body.callId}`)
  assert.equal(started.headers['preference-applied'], 'respond-async')
  // The progress is recorded: a wait returns on it (or it is there already).
  let running = await follow(app, `/calls/${body.callId}`)
  if (running.json().progress === undefined) running = await follow(app, `/calls/${body.callId}?wait=5`)
  assert.equal(running.statusCode, 202)
  assert.equal(running.headers['x-call-status'], 'running')
  assert.deepEqual(running.json().progress, { progress: 1, total: 2, message: 'half way' })
  for (const field of ['createdAt', 'updatedAt', 'expiresAt']) assert.ok(!Number.isNaN(Date.parse(running.json()[field])), field)

  open()
  const began = performance.now()
  const done = await follow(app, `/calls/${body.callId}?wait=10`)
  assert.ok(performance.now() - began < 5_000, 'the wait returned when the call ended')
  assert.equal(done.statusCode, 200)
  assert.equal(done.headers['x-call-status'], 'completed')
  assert.equal(done.headers['x-dispatch-status'], '200')
  const envelope = done.json()
  assert.equal(envelope.ok, true)
  assert.equal(envelope.tool, 'slow')
  assert.equal(envelope.callId, body.callId, 'without X-Tool-Call-Id the envelope carries the call\'s id')
  assert.deepEqual(JSON.parse(envelope.content), { done: true, run: 1 })
  // Read again: the same answer, kept.
  assert.deepEqual((await follow(app, `/calls/${body.callId}`)).json(), envelope)
})

test('Prefer is read as RFC 7240 says; without it a call answers as it always did', async (t) => {
  const { app, open } = await appWithTools(t)
  open()
  for (const prefer of ['RESPOND-ASYNC', 'wait=10, respond-async', 'handling=lenient; x=1, respond-async;foo']) {
    assert.equal((await post(app, 'slow', {}, { prefer })).statusCode, 202, prefer)
  }
  const plain = await post(app, 'slow', {}, { prefer: 'return=minimal' })
  assert.equal(plain.statusCode, 200)
  assert.equal(plain.headers['preference-applied'], undefined)
  assert.equal(plain.json().ok, true)
})

test('?wait= is capped at calls.maxWaitS and says so; a wait that is no number is a 400 naming it', async (t) => {
  const { app } = await appWithTools(t, { CALLS_MAX_WAIT_S: '1' })
  const { callId } = (await post(app, 'slow', {}, ASYNC)).json()
  await follow(app, `/calls/${callId}?wait=2`)
  const began = performance.now()
  const capped = await follow(app, `/calls/${callId}?wait=30`)
  const took = performance.now() - began
  assert.equal(capped.statusCode, 202)
  assert.equal(capped.headers['x-wait-capped'], '1')
  assert.ok(took >= 900 && took < 5_000, `waited ${took} ms`)
  assert.equal((await follow(app, `/calls/${callId}?wait=0.1`)).headers['x-wait-capped'], undefined)
  for (const wait of ['soon', '-1', '1e3', '']) {
    const bad = await follow(app, `/calls/${callId}?wait=${wait}`)
    assert.equal(bad.statusCode, 400, wait)
    assert.match(bad.json().message, /wait must be a number of seconds/, wait)
  }
})

test('DELETE cancels: the handler\'s signal fires and the answer is the cancelled envelope, with status 200', async (t) => {
  const { app, aborted } = await appWithTools(t)
  const { callId } = (await post(app, 'slow', {}, ASYNC)).json()
  const cancelled = await app.inject({ method: 'DELETE', url: `/calls/${callId}` })
  assert.match(String(await aborted), /cancelled by its caller \(DELETE \/calls\//)
  assert.equal(cancelled.statusCode, 200, cancelled.body)
  assert.equal(cancelled.headers['x-call-status'], 'cancelled')
  assert.equal(cancelled.headers['x-dispatch-status'], '499')
  assert.equal(cancelled.json().status, 'cancelled')
  assert.equal(cancelled.json().error.code, 'GW_ERR_CANCELLED')
  assert.match(cancelled.json().error.message, /^Tool slow was cancelled: the call was cancelled by its caller \(DELETE \/calls\/call_/)
  const read = await follow(app, `/calls/${callId}`)
  assert.equal(read.statusCode, 200)
  assert.equal(read.json().status, 'cancelled')
  // Again: nothing changes.
  assert.equal((await app.inject({ method: 'DELETE', url: `/calls/${callId}` })).json().status, 'cancelled')
})

test('an unknown call and another key\'s call answer the same 404; a key sees its own', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-calls-keys-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'gateway.yaml'), `auth:\n  keys:\n    - { name: alice, sha256: ${sha('alice-key')} }\n    - { name: bob, sha256: ${sha('bob-key')} }\n`)
  const keyed = await buildTestApp(t, { GATEWAY_CONFIG: join(dir, 'gateway.yaml') })
  keyed.app.gateway.registry.register(fixtureTool('quick'))
  const alice = { authorization: 'Bearer alice-key' }
  const bob = { authorization: 'Bearer bob-key' }
  const { callId } = (await post(keyed.app, 'quick', { text: 'x' }, { ...ASYNC, ...alice })).json()
  assert.equal((await follow(keyed.app, `/calls/${callId}?wait=5`, alice)).statusCode, 200)
  const foreign = await follow(keyed.app, `/calls/${callId}`, bob)
  const unknown = await follow(keyed.app, '/calls/call_00000000-0000-0000-0000-000000000000', bob)
  for (const answer of [foreign, unknown]) {
    assert.equal(answer.statusCode, 404)
    assert.equal(answer.json().code, 'GW_ERR_CALL_NOT_FOUND')
    assert.match(answer.json().message, /it is unknown, its outcome has expired .*or it was started with another API key/)
  }
  assert.equal((await keyed.app.inject({ method: 'DELETE', url: `/calls/${callId}`, headers: bob })).statusCode, 404)
  assert.equal((await keyed.app.inject({ method: 'POST', url: `/calls/${callId}/input`, headers: bob, payload: { inputResponses: {} } })).statusCode, 404)
  assert.equal((await follow(keyed.app, '/calls/not..an-id')).statusCode, 401, 'no key: refused before anything')
})

test('an outcome is kept for calls.ttlMs, then answers 404', async (t) => {
  const { app, open } = await appWithTools(t, { CALLS_TTL_MS: '300' })
  open()
  const { callId } = (await post(app, 'slow', {}, ASYNC)).json()
  assert.equal((await follow(app, `/calls/${callId}?wait=5`)).statusCode, 200)
  await sleep(450)
  assert.equal((await follow(app, `/calls/${callId}`)).statusCode, 404)
})

test('past calls.maxRunningPerCaller calls running, a caller is answered 429 naming the limit', async (t) => {
  const { app, open } = await appWithTools(t, { CALLS_MAX_RUNNING_PER_CALLER: '2' })
  assert.equal((await post(app, 'slow', {}, ASYNC)).statusCode, 202)
  assert.equal((await post(app, 'slow', {}, ASYNC)).statusCode, 202)
  const refused = await post(app, 'slow', {}, ASYNC)
  assert.equal(refused.statusCode, 429)
  assert.equal(refused.json().error.code, 'GW_ERR_RATE_LIMITED')
  assert.match(refused.json().error.message, /calls\.maxRunningPerCaller, CALLS_MAX_RUNNING_PER_CALLER/)
  // Calls without the header are not counted against it.
  open()
  assert.equal((await post(app, 'slow', {})).statusCode, 200)
})

test('a question makes the call input_required; POST /calls/:id/input answers it, checked against the question', async (t) => {
  const { app } = await appWithTools(t)
  const { callId } = (await post(app, 'ask', {}, ASYNC)).json()
  let asking = await follow(app, `/calls/${callId}?wait=5`)
  if (asking.json().status === 'running') asking = await follow(app, `/calls/${callId}?wait=5`)
  assert.equal(asking.statusCode, 202)
  assert.equal(asking.json().status, 'input_required')
  assert.equal(asking.json().inputRequests.confirm.method, 'elicitation/create')
  // A wait that has not seen the question yet is not held on it.
  const began = performance.now()
  assert.equal((await follow(app, `/calls/${callId}?wait=10`)).json().status, 'input_required')
  assert.ok(performance.now() - began < 2_000)

  const input = async (inputResponses: unknown) => await app.inject({ method: 'POST', url: `/calls/${callId}/input`, payload: { inputResponses } })
  const wrongKey = await input({ deploy: { action: 'accept' } })
  assert.equal(wrongKey.statusCode, 400)
  assert.match(wrongKey.json().message, /inputResponses\.deploy: no question "deploy" was asked/)
  const wrongContent = await input({ confirm: { action: 'accept', content: { ok: 'yes' } } })
  assert.equal(wrongContent.statusCode, 400)
  assert.match(wrongContent.json().message, /inputResponses\.confirm\.content\/ok/)
  assert.equal((await input('nope')).statusCode, 400)

  const answered = await input({ confirm: { action: 'accept', content: { ok: true } } })
  assert.ok([200, 202].includes(answered.statusCode), answered.body)
  const done = await follow(app, `/calls/${callId}?wait=5`)
  const final = done.json().status === 'ok' ? done : await follow(app, `/calls/${callId}?wait=5`)
  assert.equal(final.statusCode, 200)
  assert.deepEqual(JSON.parse(final.json().content), { answers: { confirm: { action: 'accept', content: { ok: true } } } })
})

test('with an Idempotency-Key the 202 is kept: a retry answers the same call, which ran once', async (t) => {
  const { app, runs, open } = await appWithTools(t)
  const headers = { ...ASYNC, 'idempotency-key': 'async-1' }
  const first = await post(app, 'slow', {}, headers)
  const retry = await post(app, 'slow', {}, headers)
  assert.equal(first.statusCode, 202)
  assert.equal(retry.statusCode, 202)
  assert.equal(retry.headers['idempotent-replayed'], 'true')
  assert.equal(retry.headers.location, first.headers.location)
  assert.equal(retry.headers['preference-applied'], 'respond-async')
  assert.equal(retry.json().callId, first.json().callId)
  open()
  assert.equal((await follow(app, `${first.headers.location}?wait=5`)).statusCode, 200)
  assert.equal(runs(), 1)
})

test('a batch with Prefer: respond-async runs on as one call, its progress the calls ended, its answer the batch answer', async (t) => {
  const { app } = await buildTestApp(t)
  app.gateway.registry.register(fixtureTool('quick'))
  const batch = { tool_calls: [1, 2, 3].map((i) => ({ id: `call_${i}`, type: 'function', function: { name: 'quick', arguments: JSON.stringify({ text: String(i) }) } })) }
  const started = await app.inject({ method: 'POST', url: '/dispatch', payload: batch, headers: ASYNC })
  assert.equal(started.statusCode, 202, started.body)
  assert.equal(started.json().tool, 'batch: quick')
  let done = await follow(app, `${started.headers.location as string}?wait=5`)
  while (done.statusCode === 202) done = await follow(app, `${started.headers.location as string}?wait=5`)
  assert.equal(done.statusCode, 200)
  assert.deepEqual(done.json().messages.map((m: { tool_call_id: string }) => m.tool_call_id), ['call_1', 'call_2', 'call_3'])
  assert.equal(done.json().results.length, 3)
  // A batch that cannot run is refused before any 202.
  const bad = await app.inject({ method: 'POST', url: '/dispatch', payload: { nothing: true }, headers: ASYNC })
  assert.equal(bad.statusCode, 400)
})

test('DELETE of a real unconfined terminal command kills it and every process it started', { skip: process.platform !== 'linux' && 'process groups as Linux has them' }, async (t) => {
  const { app, config } = await buildTestApp(t, { GATEWAY_ENABLE_TERMINAL: 'true', TERMINAL_SANDBOX: 'none' }, { builtins: true })
  const pidFile = join(config.workspaceRoot, 'pgid')
  const started = await post(app, 'terminal', { command: 'echo $$ > pgid; sleep 60 & sleep 60; wait', timeout: 120 }, ASYNC)
  assert.equal(started.statusCode, 202, started.body)
  let pgid = 0
  for (let i = 0; i < 500 && pgid === 0; i++) {
    pgid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim()) || 0
    if (pgid === 0) await sleep(10)
  }
  assert.ok(pgid > 0, `the command wrote its process group; the call: ${(await follow(app, `/calls/${started.json().callId}`)).body}`)
  assert.equal(await isGroupAlive(pgid), true)
  const cancelled = await app.inject({ method: 'DELETE', url: `/calls/${started.json().callId}` })
  assert.equal(cancelled.json().status, 'cancelled', cancelled.body)
  assert.equal(await waitGroupGone(pgid, 5_000), true, 'the command and its children died')
})
