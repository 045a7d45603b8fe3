// The book of detached calls with its memory store, as a route or an MCP session uses it: a call is
// readable as soon as start() resolves, shows its progress and questions, settles with its answer,
// is cancelled through its signal, belongs to its owner alone, expires after its TTL, and each
// owner has a limit of calls running and a budget of kept outcomes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { DetachedCalls, type DetachedCallsOptions } from '../../src/calls/detached-calls.ts'
import type { CallAnswer, HeldCall } from '../../src/calls/call-record.ts'
import { MemoryCallStore } from '../../src/calls/memory-call-store.ts'
import type { InputRequests } from '../../src/registry/types.ts'
import { captureLogger } from '../helpers/logger.ts'

function book (t: { after: (fn: () => Promise<void>) => void }, options: Partial<DetachedCallsOptions> & { maxBytesPerCaller?: number } = {}): DetachedCalls {
  const ttlMs = options.ttlMs ?? 60_000
  const calls = new DetachedCalls({
    memory: new MemoryCallStore({ ttlMs, maxTotalBytes: 1_000_000, maxBytesPerCaller: options.maxBytesPerCaller ?? 250_000 }),
    ttlMs,
    answerTimeoutMs: 5_000,
    maxRunningPerCaller: 4,
    leaseMs: 15_000,
    logger: captureLogger('warn').logger,
    ...options
  })
  t.after(() => calls.close())
  return calls
}

/** A run the test ends when it likes, with the held call it was given. */
function controlled (): { run: (held: HeldCall) => Promise<CallAnswer>, held: Promise<HeldCall>, finish: (answer: CallAnswer) => void } {
  const held = Promise.withResolvers<HeldCall>()
  const done = Promise.withResolvers<CallAnswer>()
  return {
    run: async (call) => {
      held.resolve(call)
      call.signal.addEventListener('abort', () => done.resolve({ status: 499, payload: ENVELOPE }), { once: true })
      return await done.promise
    },
    held: held.promise,
    finish: (answer) => done.resolve(answer)
  }
}

const ENVELOPE = { tool: 'slow', callId: 'c1', ok: true, status: 'ok', content: 'done', truncated: false, originalLength: 4, durationMs: 1 }
const CONFIRM: InputRequests = {
  confirm: { method: 'elicitation/create', params: { message: 'Deploy?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } }
}

test('a started call is readable at once, running, and completed with its answer once run ends', async (t) => {
  const calls = book(t)
  const { run, held, finish } = controlled()
  const started = await calls.start({ owner: 'alice', tool: 'slow' }, run)
  assert.match(started.callId, /^call_[0-9a-f-]{36}$/)
  assert.equal(started.status, 'running')
  assert.equal(started.tool, 'slow')
  const seen = await calls.get('alice', started.callId)
  assert.equal(seen?.status, 'running')
  assert.ok(Date.parse(seen.expiresAt) > Date.now())
  assert.equal((await held).callId, started.callId)
  finish({ status: 200, payload: ENVELOPE })
  const ended = await calls.wait('alice', started.callId, 2_000)
  assert.equal(ended?.status, 'completed')
  assert.deepEqual(ended?.answer, { status: 200, payload: ENVELOPE })
  assert.equal(calls.running, 0)
})

test('another owner, an unknown id and an expired outcome all read as undefined', async (t) => {
  const calls = book(t, { ttlMs: 150 })
  const view = await calls.start({ owner: 'alice', tool: 'quick' }, async () => ({ status: 200, payload: ENVELOPE }))
  assert.equal(await calls.get('bob', view.callId), undefined)
  assert.equal(await calls.cancel('bob', view.callId), undefined)
  assert.equal(await calls.wait('bob', view.callId, 10), undefined)
  assert.equal(await calls.get('alice', 'call_unknown'), undefined)
  assert.equal((await calls.wait('alice', view.callId, 1_000))?.status, 'completed')
  await sleep(200)
  assert.equal(await calls.get('alice', view.callId), undefined)
})

test('progress is recorded and a wait returns on the change, not after its whole time', async (t) => {
  const calls = book(t)
  const { run, held, finish } = controlled()
  const view = await calls.start({ owner: 'alice', tool: 'slow' }, run)
  const call = await held
  const waiting = calls.wait('alice', view.callId, 10_000)
  const began = performance.now()
  call.progress({ progress: 1, total: 4, message: 'one' })
  const changed = await waiting
  assert.ok(performance.now() - began < 2_000)
  assert.deepEqual(changed?.progress, { progress: 1, total: 4, message: 'one' })
  // A burst of reports: the record shows the last one within the interval.
  for (let i = 2; i <= 40; i++) call.progress({ progress: i, total: 40 })
  await sleep(700)
  assert.deepEqual((await calls.get('alice', view.callId))?.progress, { progress: 40, total: 40 })
  // `since` older than the record answers at once; a wait without change answers after its time.
  assert.equal((await calls.wait('alice', view.callId, 5_000, changed?.updatedAt))?.progress?.progress, 40)
  const quiet = performance.now()
  const same = await calls.wait('alice', view.callId, 150)
  assert.ok(performance.now() - quiet >= 140)
  assert.equal(same?.status, 'running')
  finish({ status: 200, payload: ENVELOPE })
})

test('cancel fires the held signal and the call ends cancelled, with the answer its run gave', async (t) => {
  const calls = book(t)
  const view = await calls.start({ owner: 'alice', tool: 'slow' }, async (held) => {
    await new Promise((resolve) => held.signal.addEventListener('abort', resolve, { once: true }))
    return { status: 499, payload: { ...ENVELOPE, ok: false, status: 'cancelled', reason: String(held.signal.reason) } }
  })
  const cancelled = await calls.cancel('alice', view.callId)
  assert.equal(cancelled?.status, 'running')
  const ended = await calls.wait('alice', view.callId, 2_000)
  assert.equal(ended?.status, 'cancelled')
  assert.match((ended?.answer?.payload as { reason: string }).reason, /cancelled by its caller \(DELETE \/calls\/call_/)
  // Cancelling an ended call changes nothing.
  assert.equal((await calls.cancel('alice', view.callId))?.status, 'cancelled')
})

test('a question makes the call input_required; the answers reach the tool, checked against the question', async (t) => {
  const calls = book(t)
  const answers = Promise.withResolvers<unknown>()
  const view = await calls.start({ owner: 'alice', tool: 'deploy' }, async (held) => {
    answers.resolve(await held.ask(CONFIRM, new AbortController().signal))
    return { status: 200, payload: ENVELOPE }
  })
  let asking = await calls.wait('alice', view.callId, 2_000)
  if (asking?.status === 'running') asking = await calls.wait('alice', view.callId, 2_000, asking.updatedAt)
  assert.equal(asking?.status, 'input_required')
  assert.deepEqual(asking?.inputRequests, CONFIRM)

  await assert.rejects(calls.answer('alice', view.callId, { other: { action: 'accept' } }), /inputResponses\.other: no question "other" was asked: the questions waiting are "confirm"/)
  await assert.rejects(calls.answer('alice', view.callId, {}), /inputResponses\.confirm: the question "confirm" needs an answer/)
  await assert.rejects(calls.answer('alice', view.callId, { confirm: { action: 'maybe' } }), /inputResponses\.confirm\.action must be "accept", "decline" or "cancel"/)
  await assert.rejects(calls.answer('alice', view.callId, { confirm: { action: 'accept', content: { ok: 'yes' } } }), /inputResponses\.confirm\.content\/ok: does not match the requestedSchema/)
  assert.equal(await calls.answer('bob', view.callId, { confirm: { action: 'accept', content: { ok: true } } }), undefined)

  const after = await calls.answer('alice', view.callId, { confirm: { action: 'accept', content: { ok: true } } })
  assert.notEqual(after?.status, 'input_required')
  assert.equal(after?.inputRequests, undefined)
  assert.deepEqual(await answers.promise, { confirm: { action: 'accept', content: { ok: true } } })
  assert.equal((await calls.wait('alice', view.callId, 2_000))?.status, 'completed')
  // Nothing waits any more: an answer now names the key it answers.
  await assert.rejects(calls.answer('alice', view.callId, { confirm: { action: 'decline' } }), /inputResponses\.confirm: no question "confirm" was asked: the call waits for no answer \(it is completed\)/)
})

test('a question nobody answers fails within calls.answerTimeoutMs, naming that nobody answered, and the signal fires', async (t) => {
  const calls = book(t, { answerTimeoutMs: 100 })
  const failure = Promise.withResolvers<unknown>()
  let signal: AbortSignal | undefined
  const view = await calls.start({ owner: 'alice', tool: 'deploy' }, async (held) => {
    signal = held.signal
    try {
      await held.ask(CONFIRM, new AbortController().signal)
    } catch (err) {
      failure.resolve(err)
    }
    await sleep(20)
    return { status: 200, payload: ENVELOPE }
  })
  const err = await failure.promise as { code: string, message: string }
  assert.equal(err.code, 'GW_ERR_INPUT_TIMEOUT')
  assert.match(err.message, /nobody answered the tool's questions \("confirm"\) within 100 ms \(calls\.answerTimeoutMs\)/)
  await sleep(10)
  assert.equal(signal?.aborted, true)
  assert.equal((await calls.wait('alice', view.callId, 2_000))?.status, 'completed')
})

test('an owner may have maxRunningPerCaller calls running; others are not held back by it', async (t) => {
  const calls = book(t, { maxRunningPerCaller: 2 })
  const gates = [controlled(), controlled()]
  const ids: string[] = []
  for (const gate of gates) ids.push((await calls.start({ owner: 'alice', tool: 'slow' }, gate.run)).callId)
  await assert.rejects(calls.start({ owner: 'alice', tool: 'slow' }, gates[0].run), (err: { code: string, statusCode: number, message: string }) => {
    assert.equal(err.code, 'GW_ERR_RATE_LIMITED')
    assert.equal(err.statusCode, 429)
    assert.match(err.message, /already has 2 calls running in the background.*calls\.maxRunningPerCaller/)
    return true
  })
  const bob = await calls.start({ owner: 'bob', tool: 'slow' }, async () => ({ status: 200, payload: ENVELOPE }))
  assert.equal(bob.status, 'running')
  gates[0].finish({ status: 200, payload: ENVELOPE })
  assert.equal((await calls.wait('alice', ids[0], 2_000))?.status, 'completed')
  const third = await calls.start({ owner: 'alice', tool: 'slow' }, async () => ({ status: 200, payload: ENVELOPE }))
  assert.equal(third.status, 'running')
  gates[1].finish({ status: 200, payload: ENVELOPE })
})

test('an owner\'s kept outcomes stay within its budget: its oldest go, an outcome larger than all of it reads lost saying why', async (t) => {
  const calls = book(t, { maxBytesPerCaller: 4_000 })
  const big = { ...ENVELOPE, content: 'x'.repeat(700) }
  const ids: string[] = []
  for (let i = 0; i < 4; i++) {
    const view = await calls.start({ owner: 'alice', tool: 'quick' }, async () => ({ status: 200, payload: big }))
    assert.equal((await calls.wait('alice', view.callId, 2_000))?.status, 'completed')
    ids.push(view.callId)
  }
  assert.equal(await calls.get('alice', ids[0]), undefined, 'the oldest outcome made room')
  assert.equal((await calls.get('alice', ids[3]))?.status, 'completed')
  const huge = await calls.start({ owner: 'alice', tool: 'quick' }, async () => ({ status: 200, payload: { ...ENVELOPE, content: 'y'.repeat(5_000) } }))
  const lost = await calls.wait('alice', huge.callId, 2_000)
  assert.equal(lost?.status, 'lost')
  assert.match(lost?.error ?? '', /its answer \(\d+ bytes\) is more than one caller may keep \(calls\.maxBytesPerCaller\)/)
})

test('adopt: a running call enters the book; a cancel reaches the adopter, who settles it', async (t) => {
  const calls = book(t)
  const cancelled = Promise.withResolvers<unknown>()
  const held = await calls.adopt({ owner: 'alice', tool: 'deploy', callId: 'mcp_1' }, (reason) => cancelled.resolve(reason))
  assert.equal(held.callId, 'mcp_1')
  assert.equal((await calls.get('alice', 'mcp_1'))?.status, 'running')
  await assert.rejects(calls.adopt({ owner: 'bob', tool: 'deploy', callId: 'mcp_1' }, () => {}), /call id mcp_1 is in use/)
  await calls.cancel('alice', 'mcp_1')
  assert.match(String(await cancelled.promise), /cancelled by its caller/)
  await held.settle({ status: 499, payload: ENVELOPE })
  assert.equal((await calls.get('alice', 'mcp_1'))?.status, 'cancelled')
})

test('a run that throws ends the call with a generic failure; shutdown fires every held signal', async (t) => {
  const shutdown = new AbortController()
  const calls = book(t, { shutdown: shutdown.signal })
  const broken = await calls.start({ owner: 'alice', tool: 'broken' }, async () => { throw new Error('bug') })
  const ended = await calls.wait('alice', broken.callId, 2_000)
  assert.equal(ended?.status, 'completed')
  assert.equal(ended?.answer?.status, 500)
  assert.equal((ended?.answer?.payload as { code: string }).code, 'GW_ERR_INTERNAL')

  const { run, held } = controlled()
  await calls.start({ owner: 'alice', tool: 'slow' }, run)
  shutdown.abort(new Error('stopping'))
  assert.equal((await held).signal.aborted, true)
})
