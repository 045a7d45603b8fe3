// A call answered in the request that made it, whose tool asks: the first turn is the question (the
// call enters the book and no longer listens to its connection), the caller's answers bring the
// next turn (the result, or the next question), on a book any replica reads; wrong answers, another
// tool's state and another owner's call are refused as such.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DetachedCalls } from '../../src/calls/detached-calls.ts'
import { MemoryCallStore } from '../../src/calls/memory-call-store.ts'
import { firstTurn, nextTurn, type Asker } from '../../src/calls/question-relay.ts'
import type { CallAnswer, CallView } from '../../src/calls/call-record.ts'
import type { InputRequests } from '../../src/registry/types.ts'
import { captureLogger } from '../helpers/logger.ts'

function book (t: { after: (fn: () => Promise<void>) => void }): DetachedCalls {
  const calls = new DetachedCalls({
    memory: new MemoryCallStore({ ttlMs: 60_000, maxTotalBytes: 1_000_000, maxBytesPerCaller: 250_000 }),
    ttlMs: 60_000,
    answerTimeoutMs: 5_000,
    maxRunningPerCaller: 4,
    leaseMs: 15_000,
    logger: captureLogger('warn').logger
  })
  t.after(() => calls.close())
  return calls
}

const question = (key: string, message: string): InputRequests => ({
  [key]: { method: 'elicitation/create', params: { message, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } }
})
const lost = (view: CallView): CallAnswer => ({ status: 502, payload: { lost: view.error } })

/** A deploy that asks twice, then answers with what it was told. */
function deploy (seen: { signal?: AbortSignal }) {
  return async (signal: AbortSignal, ask: Asker): Promise<CallAnswer> => {
    seen.signal = signal
    const first = await ask(question('confirm', 'Deploy to prod?'), signal)
    const second = await ask(question('really', 'Really?'), signal)
    return { status: 200, payload: { first, second } }
  }
}

test('a call that asks twice: question, question, answer, each turn from the book', async (t) => {
  const calls = book(t)
  const connection = new AbortController()
  const seen: { signal?: AbortSignal } = {}
  const first = await firstTurn(calls, { owner: 'alice', tool: 'deploy' }, connection.signal, deploy(seen))
  assert.equal(first.kind, 'question')
  if (first.kind !== 'question') return
  assert.deepEqual(Object.keys(first.inputRequests), ['confirm'])
  assert.equal(first.requestState, first.callId)
  // The request that made the call is over: its connection closing no longer stops the call.
  connection.abort(new Error('client went away'))
  assert.equal(seen.signal?.aborted, false)
  assert.equal((await calls.get('alice', first.callId))?.status, 'input_required')

  const second = await nextTurn(calls, 'alice', 'deploy', first.requestState, { confirm: { action: 'accept', content: { ok: true } } }, lost)
  assert.equal(second?.kind, 'question')
  if (second?.kind !== 'question') return
  assert.deepEqual(Object.keys(second.inputRequests), ['really'])

  const third = await nextTurn(calls, 'alice', 'deploy', second.requestState, { really: { action: 'decline' } }, lost)
  assert.deepEqual(third, { kind: 'answer', answer: { status: 200, payload: { first: { confirm: { action: 'accept', content: { ok: true } } }, second: { really: { action: 'decline' } } } } })
  // Sent again after the end: the kept answer, not a second run.
  assert.deepEqual(await nextTurn(calls, 'alice', 'deploy', first.requestState, {}, lost), third)
})

test('a call that never asks answers at once and enters no book; its connection still cancels it', async (t) => {
  const calls = book(t)
  const plain = await firstTurn(calls, { owner: 'alice', tool: 'echo' }, undefined, async () => ({ status: 200, payload: 'hi' }))
  assert.deepEqual(plain, { kind: 'answer', answer: { status: 200, payload: 'hi' } })
  const connection = new AbortController()
  const cancelled = firstTurn(calls, { owner: 'alice', tool: 'slow' }, connection.signal, async (signal) => {
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
    return { status: 499, payload: 'cancelled' }
  })
  connection.abort(new Error('gone'))
  assert.deepEqual(await cancelled, { kind: 'answer', answer: { status: 499, payload: 'cancelled' } })
})

test('wrong answers, another tool, another owner, a forged state: refused as such, and the call still waits', async (t) => {
  const calls = book(t)
  const first = await firstTurn(calls, { owner: 'alice', tool: 'deploy' }, undefined, deploy({}))
  assert.equal(first.kind, 'question')
  if (first.kind !== 'question') return
  await assert.rejects(nextTurn(calls, 'alice', 'deploy', first.requestState, { confirm: { action: 'accept', content: { ok: 'yes' } } }, lost), /inputResponses\.confirm\.content\/ok/)
  await assert.rejects(nextTurn(calls, 'alice', 'deploy', first.requestState, { other: { action: 'accept' } }, lost), /no question "other" was asked/)
  await assert.rejects(nextTurn(calls, 'alice', 'drop_table', first.requestState, { confirm: { action: 'decline' } }, lost), /names a call of tool "deploy"/)
  assert.equal(await nextTurn(calls, 'mallory', 'deploy', first.requestState, { confirm: { action: 'decline' } }, lost), undefined)
  assert.equal(await nextTurn(calls, 'alice', 'deploy', 'call_00000000-0000-0000-0000-000000000000', {}, lost), undefined)
  assert.equal(await nextTurn(calls, 'alice', 'deploy', '../../etc/passwd', {}, lost), undefined)
  assert.equal((await calls.get('alice', first.callId))?.status, 'input_required')
  await calls.cancel('alice', first.callId)
})

test('calls waiting for answers count against the caller\'s limit of calls running: past it, the question is refused', async (t) => {
  const calls = new DetachedCalls({
    memory: new MemoryCallStore({ ttlMs: 60_000, maxTotalBytes: 1_000_000, maxBytesPerCaller: 250_000 }),
    ttlMs: 60_000,
    answerTimeoutMs: 5_000,
    maxRunningPerCaller: 1,
    leaseMs: 15_000,
    logger: captureLogger('warn').logger
  })
  t.after(() => calls.close())
  const first = await firstTurn(calls, { owner: 'alice', tool: 'deploy' }, undefined, deploy({}))
  assert.equal(first.kind, 'question')
  await assert.rejects(firstTurn(calls, { owner: 'alice', tool: 'deploy' }, undefined, deploy({})), /already has 1 calls running in the background or waiting for answers/)
  // Another caller has its own room.
  assert.equal((await firstTurn(calls, { owner: 'bob', tool: 'deploy' }, undefined, deploy({}))).kind, 'question')
  if (first.kind === 'question') await calls.cancel('alice', first.callId)
})
