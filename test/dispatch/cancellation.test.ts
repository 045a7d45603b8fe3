// Cancellation (a connection's AbortController) alone, and as the invoke step sees it through the
// call's signal: the handler's signal fires with the same reason.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Cancellation } from '../../src/dispatch/call/cancellation.ts'
import { DEFAULT_DISPATCH_CONFIG } from '../../src/dispatch/call/dispatch-config.ts'
import { createCallState } from '../../src/dispatch/call/pipeline.ts'
import { invokeStep } from '../../src/dispatch/steps/invoke-handler.ts'
import { ToolRegistry } from '../../src/registry/registry.ts'
import type { ToolContext, ToolHandler } from '../../src/registry/types.ts'
import { captureLogger } from '../helpers/logger.ts'

function callFor (handler: ToolHandler, cancellation?: Cancellation) {
  const entry = new ToolRegistry().register({ name: 'probe', toolset: 'testing', schema: { parameters: { type: 'object' } }, handler })
  const { logger, lines } = captureLogger('trace')
  const call = createCallState({ name: 'probe', args: {}, signal: cancellation?.signal }, 'call_test', 0, DEFAULT_DISPATCH_CONFIG, logger)
  call.entry = entry
  return { call, lines }
}

const invoke = invokeStep({ timeoutOf: () => 60_000 })
const neverNext = async () => { throw new Error('invoke must not call next') }

test('Cancellation: cancels once with the first reason, as abort() does', () => {
  const cancellation = new Cancellation()
  const seen: unknown[] = []
  cancellation.signal.addEventListener('abort', () => seen.push(cancellation.signal.reason))
  assert.equal(cancellation.signal.aborted, false)
  const first = new Error('first')
  cancellation.cancel(first)
  cancellation.cancel(new Error('second'))
  assert.equal(cancellation.signal.aborted, true)
  assert.equal(cancellation.signal.reason, first)
  assert.deepEqual(seen, [first])
})

test('invoke: many calls running at once on one cancellation (a batch) raise no listener-leak warning, and each is cancelled', async () => {
  const cancellation = new Cancellation()
  const warnings: string[] = []
  const onWarning = (warning: Error): void => { warnings.push(warning.message) }
  process.on('warning', onWarning)
  try {
    const running = Array.from({ length: 25 }, () => invoke(callFor((_args, ctx) => new Promise<string>((resolve) => {
      ctx.signal.addEventListener('abort', () => resolve('{}'), { once: true })
    }), cancellation).call, neverNext))
    await new Promise((resolve) => setImmediate(resolve))
    cancellation.cancel(new Error('client went away'))
    const results = await Promise.all(running)
    assert.deepEqual(new Set(results.map((result) => result.status)), new Set(['cancelled']))
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(warnings.filter((message) => message.includes('listeners')), [])
  } finally {
    process.off('warning', onWarning)
  }
})

test('invoke: a cancellation already cancelled answers cancelled without running the handler', async () => {
  const cancellation = new Cancellation()
  cancellation.cancel(new Error('client went away'))
  let ran = false
  const { call } = callFor(() => { ran = true; return '{}' }, cancellation)
  const result = await invoke(call, neverNext)
  assert.equal(result.status, 'cancelled')
  assert.equal(ran, false)
})

test('invoke: cancelling mid-call aborts the handler signal with the same reason and answers cancelled', async () => {
  const cancellation = new Cancellation()
  const reason = new Error('the client closed the connection')
  let seenReason: unknown
  const { call } = callFor((_args, ctx) => new Promise<string>((resolve) => {
    ctx.signal.addEventListener('abort', () => { seenReason = ctx.signal.reason; resolve('{"late":true}') }, { once: true })
    queueMicrotask(() => cancellation.cancel(reason))
  }), cancellation)
  const result = await invoke(call, neverNext)
  assert.equal(result.status, 'cancelled')
  assert.equal(seenReason, reason)
})

test('invoke: a call that finished stops listening, so a later cancel reaches no handler', async () => {
  const cancellation = new Cancellation()
  let signal: AbortSignal | undefined
  const { call } = callFor((_args, ctx) => { signal = ctx.signal; return '{"ok":true}' }, cancellation)
  const result = await invoke(call, neverNext)
  assert.equal(result.status, 'ok')
  cancellation.cancel(new Error('after the answer'))
  assert.equal(signal?.aborted, false)
})

test('invoke: the handler context exposes a real signal and the call logger', async () => {
  let ctx: ToolContext | undefined
  const { call, lines } = callFor((_args, context) => { ctx = context; context.logger.info('from the handler'); return '{}' })
  await invoke(call, neverNext)
  assert.ok(ctx?.signal instanceof AbortSignal)
  assert.equal(ctx?.logger, call.logger)
  const line = lines().find((l) => l.msg === 'from the handler')
  assert.equal(line?.callId, 'call_test')
  assert.equal(line?.tool, 'probe')
})
