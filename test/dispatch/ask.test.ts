// ctx.ask as the invoke step gives it to a handler: the caller's answers come back keyed as asked,
// the deadline stops while the caller thinks, a caller that cannot be asked gets an error naming
// what the tool asked, and a malformed question is the tool's bug, named.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DEFAULT_DISPATCH_CONFIG } from '../../src/dispatch/call/dispatch-config.ts'
import { createCallState, type DispatchRequest } from '../../src/dispatch/call/pipeline.ts'
import { invokeStep } from '../../src/dispatch/steps/invoke-handler.ts'
import { ToolRegistry } from '../../src/registry/registry.ts'
import type { InputRequests, ToolHandler } from '../../src/registry/types.ts'
import { captureLogger } from '../helpers/logger.ts'

function callFor (handler: ToolHandler, ask?: DispatchRequest['ask']) {
  const entry = new ToolRegistry().register({ name: 'deploy', toolset: 'testing', schema: { parameters: { type: 'object' } }, handler })
  const { logger } = captureLogger('trace')
  const call = createCallState({ name: 'deploy', args: {}, ask }, 'call_test', 0, DEFAULT_DISPATCH_CONFIG, logger)
  call.entry = entry
  return call
}

const neverNext = async () => { throw new Error('invoke must not call next') }
const CONFIRM: InputRequests = {
  confirm: { method: 'elicitation/create', params: { message: 'Deploy to prod?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } }
}

test('ctx.ask: the answers come back keyed as asked, and the deadline stops while the caller thinks', async () => {
  const asked: InputRequests[] = []
  const ask: DispatchRequest['ask'] = async (requests, signal) => {
    asked.push(requests)
    assert.equal(signal.aborted, false)
    // Longer than the call's whole deadline: only a stopped deadline lets the call go on.
    await new Promise((resolve) => setTimeout(resolve, 300))
    return { confirm: { action: 'accept', content: { ok: true } } }
  }
  const call = callFor(async (_args, ctx) => {
    const answers = await ctx.ask!(CONFIRM)
    await new Promise((resolve) => setTimeout(resolve, 50))
    return JSON.stringify(answers.confirm)
  }, ask)
  const result = await invokeStep({ timeoutOf: () => 200 })(call, neverNext)
  assert.equal(result.status, 'ok', JSON.stringify(result))
  assert.deepEqual(JSON.parse(result.content), { action: 'accept', content: { ok: true } })
  assert.deepEqual(asked, [CONFIRM])
})

test('ctx.ask: the time before and after a question still counts against the deadline', async () => {
  const call = callFor(async (_args, ctx) => {
    await new Promise((resolve) => setTimeout(resolve, 120))
    await ctx.ask!(CONFIRM)
    await new Promise((resolve) => setTimeout(resolve, 120))
    return 'done'
  }, async () => ({ confirm: { action: 'decline' } }))
  const result = await invokeStep({ timeoutOf: () => 200 })(call, neverNext)
  assert.equal(result.status, 'timeout', JSON.stringify(result))
})

test('ctx.ask: a caller that cannot be asked fails the call with an error naming what the tool asked', async () => {
  const call = callFor(async (_args, ctx) => { await ctx.ask!(CONFIRM); return 'done' })
  const result = await invokeStep({ timeoutOf: () => 5_000 })(call, neverNext)
  assert.equal(result.status, 'error')
  assert.match(result.content, /GW_ERR_INPUT_UNSUPPORTED|cannot be asked/)
  assert.match(result.content, /Deploy to prod\?/)
  assert.match(result.content, /confirm: a form for the user/)
})

test('ctx.ask: a malformed question is named as the tool\'s bug', async () => {
  for (const [questions, expected] of [
    [{}, /at least one question/],
    [{ q: { method: 'tools/call' } }, /question \\"q\\" must be/],
    [{ q: { method: 'roots/list', params: 'x' } }, /params of question \\"q\\"/]
  ] as const) {
    const call = callFor(async (_args, ctx) => { await ctx.ask!(questions as unknown as InputRequests); return 'done' }, async () => ({}))
    const result = await invokeStep({ timeoutOf: () => 5_000 })(call, neverNext)
    assert.equal(result.status, 'error')
    assert.match(result.content, expected)
  }
})

test('ctx.ask: a call cancelled while its question waits ends cancelled, and the asker sees the signal', async () => {
  const controller = new AbortController()
  let askerSignal: AbortSignal | undefined
  const entry = new ToolRegistry().register({
    name: 'deploy',
    toolset: 'testing',
    schema: { parameters: { type: 'object' } },
    handler: async (_args, ctx) => { await ctx.ask!(CONFIRM); return 'done' }
  })
  const { logger } = captureLogger('trace')
  const call = createCallState({
    name: 'deploy',
    args: {},
    signal: controller.signal,
    ask: async (_requests, signal) => {
      askerSignal = signal
      return await new Promise((_resolve, reject) => { signal.addEventListener('abort', () => reject(signal.reason), { once: true }) })
    }
  }, 'call_test', 0, DEFAULT_DISPATCH_CONFIG, logger)
  call.entry = entry
  const running = invokeStep({ timeoutOf: () => 5_000 })(call, neverNext)
  await new Promise((resolve) => setTimeout(resolve, 20))
  controller.abort(new Error('client went away'))
  const result = await running
  assert.equal(result.status, 'cancelled')
  assert.equal(askerSignal?.aborted, true)
})
