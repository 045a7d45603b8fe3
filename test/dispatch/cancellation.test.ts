// Cancellation (the hot path's stand-in for a per-request AbortSignal) alone, and as the invoke
// step and the lazy call logger see it: the handler's signal still fires with the same reason.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Cancellation } from '../../src/dispatch/cancellation.ts'
import { createCallState } from '../../src/dispatch/pipeline.ts'
import { invokeStep } from '../../src/dispatch/steps/invoke-handler.ts'
import { ToolRegistry } from '../../src/registry/registry.ts'
import type { ToolContext, ToolHandler } from '../../src/registry/types.ts'
import { captureLogger } from '../helpers/logger.ts'

function callFor (handler: ToolHandler, cancellation?: Cancellation) {
  const entry = new ToolRegistry().register({ name: 'probe', toolset: 'testing', schema: { parameters: { type: 'object' } }, handler })
  const { logger, lines } = captureLogger('trace')
  const call = createCallState({ name: 'probe', args: {}, cancellation }, 'call_test', 0, logger)
  call.entry = entry
  return { call, lines }
}

const invoke = invokeStep({ timeoutOf: () => 60_000, config: undefined })
const neverNext = async () => { throw new Error('invoke must not call next') }

test('Cancellation: listeners run once with the reason; a second cancel changes nothing', () => {
  const cancellation = new Cancellation()
  const seen: unknown[] = []
  cancellation.subscribe((reason) => seen.push(reason))
  assert.equal(cancellation.cancelled, false)
  const first = new Error('first')
  cancellation.cancel(first)
  cancellation.cancel(new Error('second'))
  assert.equal(cancellation.cancelled, true)
  assert.equal(cancellation.reason, first)
  assert.deepEqual(seen, [first])
})

test('Cancellation: an unsubscribed listener is not called; subscribing after the cancel calls nothing', () => {
  const cancellation = new Cancellation()
  let calls = 0
  const unsubscribe = cancellation.subscribe(() => { calls++ })
  unsubscribe()
  cancellation.cancel('gone')
  cancellation.subscribe(() => { calls++ })()
  assert.equal(calls, 0)
})

test('Cancellation: with several listeners (a batch), each unsubscribes alone and the rest still run', () => {
  const cancellation = new Cancellation()
  const seen: string[] = []
  const unsubscribers = ['a', 'b', 'c', 'd'].map((name) => cancellation.subscribe(() => seen.push(name)))
  unsubscribers[0]()
  unsubscribers[2]()
  cancellation.subscribe(() => seen.push('e'))
  unsubscribers[0]()
  cancellation.cancel('gone')
  assert.deepEqual(seen.sort(), ['b', 'd', 'e'])
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

test('invoke: a call that finished unsubscribes, so a later cancel reaches no handler', async () => {
  const cancellation = new Cancellation()
  let signal: AbortSignal | undefined
  const { call } = callFor((_args, ctx) => { signal = ctx.signal; return '{"ok":true}' }, cancellation)
  const result = await invoke(call, neverNext)
  assert.equal(result.status, 'ok')
  cancellation.cancel(new Error('after the answer'))
  assert.equal(signal?.aborted, false)
})

test('invoke: the handler context exposes a real signal and the call logger, built on first use', async () => {
  let ctx: ToolContext | undefined
  const { call, lines } = callFor((_args, context) => { ctx = context; context.logger.info('from the handler'); return '{}' })
  await invoke(call, neverNext)
  assert.ok(ctx?.signal instanceof AbortSignal)
  assert.equal(ctx?.logger, call.logger)
  const line = lines().find((l) => l.msg === 'from the handler')
  assert.equal(line?.callId, 'call_test')
  assert.equal(line?.tool, 'probe')
})
