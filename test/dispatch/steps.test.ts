// Each dispatch step alone: a hand-built CallState and a `next` stub, no Dispatcher. Also compose,
// entryOf and the outcome mapping the steps feed.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AvailabilityChecker } from '../../src/availability/checker.ts'
import { ToolRegistry } from '../../src/registry/registry.ts'
import type { RegisterOptions, ToolContext, ToolEntry } from '../../src/registry/types.ts'
import { DEFAULT_DISPATCH_CONFIG } from '../../src/dispatch/call/dispatch-config.ts'
import { HookRegistry, type PostToolCallEvent, type PreToolCallEvent } from '../../src/dispatch/call/hooks.ts'
import type { StepResult } from '../../src/dispatch/call/outcome.ts'
import { compose, createCallState, entryOf, type CallState, type DispatchRequest, type Step } from '../../src/dispatch/call/pipeline.ts'
import { coerceStep } from '../../src/dispatch/steps/coerce-arguments.ts'
import { postHookStep, preHookStep, transformStep } from '../../src/dispatch/steps/hook-steps.ts'
import { invokeStep, sanitizeError } from '../../src/dispatch/steps/invoke-handler.ts'
import { lookupStep } from '../../src/dispatch/steps/lookup.ts'
import { parseArguments, parseStep } from '../../src/dispatch/steps/parse-arguments.ts'
import { truncateStep } from '../../src/dispatch/steps/truncate-result.ts'
import { validateStep } from '../../src/dispatch/steps/validate-arguments.ts'
import { captureLogger } from '../helpers/logger.ts'

const PARAMETERS = {
  type: 'object',
  properties: { n: { type: 'integer' }, text: { type: 'string' } },
  required: ['n']
}

function makeEntry (overrides: Partial<RegisterOptions> = {}): ToolEntry {
  return new ToolRegistry().register({
    name: 'probe',
    toolset: 'testing',
    schema: { description: 'a probe', parameters: PARAMETERS },
    handler: () => 'ok',
    ...overrides
  })
}

function makeCall (request: Partial<DispatchRequest> = {}, state: Partial<CallState> = {}) {
  const captured = captureLogger('trace')
  const call: CallState = {
    request: { name: 'probe', args: {}, ...request },
    callId: 'call_test',
    startedAt: 0,
    config: DEFAULT_DISPATCH_CONFIG,
    logger: captured.logger,
    args: {},
    ...state
  }
  return { call, lines: captured.lines }
}

const OK: StepResult = { status: 'ok', content: 'from next' }

/** A `next` that records how often it ran and answers `result`. */
function nextStub (result: StepResult = OK, onCall: () => void = () => {}) {
  const stub = Object.assign(async () => { stub.calls++; onCall(); return result }, { calls: 0 })
  return stub
}

function errorOf (content: string): string {
  return (JSON.parse(content) as { error: string }).error
}

// ---- compose / entryOf ----

test('compose: the first step wraps the second; each sees what the inner ones answered', async () => {
  const order: string[] = []
  const wrap = (name: string): Step => async (call, next) => {
    order.push(`${name} in`)
    const result = await next(call)
    order.push(`${name} out`)
    return { ...result, content: `${name}(${result.content})` }
  }
  const answer: Step = async () => { order.push('answer'); return { status: 'ok', content: 'x' } }
  const never: Step = async () => { throw new Error('a step after the answer must not run') }
  const run = compose([wrap('a'), wrap('b'), answer, never])
  const { call } = makeCall()
  assert.deepEqual(await run(call), { status: 'ok', content: 'a(b(x))' })
  assert.deepEqual(order, ['a in', 'b in', 'answer', 'b out', 'a out'])
})

test('compose: a chain that runs out of steps fails through its promise', async () => {
  const pass: Step = async (call, next) => await next(call)
  const { call } = makeCall()
  await assert.rejects(compose([pass])(call), /dispatch pipeline ended without an answer/)
  await assert.rejects(compose([])(call), /ended without an answer/)
})

test('entryOf: throws before the lookup step, returns the entry after', () => {
  const { call } = makeCall()
  assert.throws(() => entryOf(call), /before the lookup step/)
  const entry = makeEntry()
  call.entry = entry
  assert.equal(entryOf(call), entry)
})

// ---- lookup ----

test('lookup: an unknown tool answers not_found without calling next', async () => {
  const registry = new ToolRegistry()
  const step = lookupStep(() => registry.snapshot(), new AvailabilityChecker())
  const { call } = makeCall({ name: 'ghost' })
  const next = nextStub()
  const result = await step(call, next)
  assert.deepEqual(result, { status: 'not_found', content: '{"error":"Unknown tool: ghost"}', message: 'Unknown tool: ghost' })
  assert.equal(next.calls, 0)
  assert.equal(call.entry, undefined)
})

test('lookup: an unavailable tool answers unavailable with the reason', async () => {
  const registry = new ToolRegistry()
  registry.register({ ...baseOptions(), checkFn: () => ({ available: false, reason: 'no API key' }) })
  const step = lookupStep(() => registry.snapshot(), new AvailabilityChecker())
  const { call } = makeCall()
  const next = nextStub()
  const result = await step(call, next)
  assert.equal(result.status, 'unavailable')
  assert.equal(result.message, 'Tool probe is unavailable: no API key')
  assert.equal(errorOf(result.content), 'Tool probe is unavailable: no API key')
  assert.equal(next.calls, 0)
})

test('lookup: a found, available tool is set on the call, the logger gains its name, next answers', async () => {
  const registry = new ToolRegistry()
  const entry = registry.register({ ...baseOptions(), checkFn: () => true })
  const step = lookupStep(() => registry.snapshot(), new AvailabilityChecker())
  const { logger, lines } = captureLogger('trace')
  const call = createCallState({ name: 'probe', args: {} }, 'call_test', 0, DEFAULT_DISPATCH_CONFIG, logger)
  call.logger.info('before the lookup')
  const next = nextStub(OK, () => call.logger.info('inside'))
  assert.equal(await step(call, next), OK)
  assert.equal(call.entry, entry)
  assert.equal(next.calls, 1)
  assert.deepEqual(lines().map((line) => [line.msg, line.callId, line.tool]), [['before the lookup', 'call_test', undefined], ['inside', 'call_test', 'probe']])
})

test('createCallState: a call that never logs builds no child logger; one that does gets it once, rebuilt only to add the tool', () => {
  const { logger } = captureLogger('trace')
  let children = 0
  const counting = Object.create(logger, { child: { value: (bindings: object) => { children++; return logger.child(bindings) } } }) as typeof logger
  const call = createCallState({ name: 'probe', args: {} }, 'call_test', 0, DEFAULT_DISPATCH_CONFIG, counting)
  call.args = { a: 1 }
  assert.equal(children, 0)
  assert.equal(call.logger, call.logger)
  assert.equal(children, 1)
  call.entry = makeEntry()
  assert.equal(call.logger, call.logger)
  assert.equal(children, 2)
})

function baseOptions (): RegisterOptions {
  return { name: 'probe', toolset: 'testing', schema: { parameters: PARAMETERS }, handler: () => 'ok' }
}

// ---- parse ----

test('parseArguments: objects, JSON strings, and nothing at all', () => {
  assert.deepEqual(parseArguments({ a: 1 }), { args: { a: 1 } })
  assert.deepEqual(parseArguments('{"a":1}'), { args: { a: 1 } })
  assert.deepEqual(parseArguments(''), { args: {} })
  assert.deepEqual(parseArguments(undefined), { args: {} })
  assert.deepEqual(parseArguments(null), { args: {} })
  assert.deepEqual(parseArguments('null'), { args: {} })
})

test('parseArguments: invalid JSON, arrays, numbers and other non-objects are errors that say what came', () => {
  const cases: Array<[unknown, RegExp]> = [
    ['{"a":', /^invalid arguments: not valid JSON \(/],
    ['[1,2]', /expected a JSON object, got an array$/],
    [[1, 2], /expected a JSON object, got an array$/],
    ['42', /expected a JSON object, got a number$/],
    [42, /expected a JSON object, got a number$/],
    ['"text"', /expected a JSON object, got a string$/],
    ['true', /expected a JSON object, got a boolean$/]
  ]
  for (const [raw, pattern] of cases) {
    const parsed = parseArguments(raw)
    assert.ok('error' in parsed, JSON.stringify(raw))
    assert.match(parsed.error, pattern)
  }
})

test('parse step: sets call.args and calls next; invalid arguments answer invalid without next', async () => {
  const { call } = makeCall({ args: '{"n":"5"}' })
  const next = nextStub()
  assert.equal(await parseStep(call, next), OK)
  assert.deepEqual(call.args, { n: '5' })

  const bad = makeCall({ args: '[]' })
  const badNext = nextStub()
  const result = await parseStep(bad.call, badNext)
  assert.equal(result.status, 'invalid')
  assert.equal(errorOf(result.content), 'invalid arguments: expected a JSON object, got an array')
  assert.equal(result.message, 'invalid arguments: expected a JSON object, got an array')
  assert.equal(badNext.calls, 0)
})

// ---- coerce ----

test('coerce step: coerces call.args toward the schema, then calls next', async () => {
  const { call } = makeCall({}, { entry: makeEntry(), args: { n: '5', text: 'x', extra: '7' } })
  const next = nextStub()
  assert.equal(await coerceStep(call, next), OK)
  assert.deepEqual(call.args, { n: 5, text: 'x', extra: '7' })
  assert.equal(next.calls, 1)
})

test('coerce step: arguments that already validate are passed on as they are, not copied', async () => {
  const args = { n: 5, text: 'x' }
  const { call } = makeCall({}, { entry: makeEntry(), args })
  const next = nextStub()
  assert.equal(await coerceStep(call, next), OK)
  assert.equal(call.args, args)
  assert.equal(next.calls, 1)
})

// ---- validate ----

test('validate step: valid arguments go on', async () => {
  const { call } = makeCall({}, { entry: makeEntry(), args: { n: 5 } })
  const next = nextStub()
  assert.equal(await validateStep(call, next), OK)
  assert.equal(next.calls, 1)
})

test('validate step: invalid arguments answer invalid, naming each path and the tool, without next', async () => {
  const { call } = makeCall({}, { entry: makeEntry(), args: { text: 3 } })
  const next = nextStub()
  const result = await validateStep(call, next)
  assert.equal(result.status, 'invalid')
  assert.equal(next.calls, 0)
  assert.match(result.message!, /\/n: is required/)
  assert.match(result.message!, /\/text: must be string/)
  assert.match(result.message!, /\(tool probe\)$/)
  assert.equal(errorOf(result.content), result.message)
})

test('validate step: an MCP tool is validated without allErrors (first failure only)', async () => {
  const entry = makeEntry({ origin: { kind: 'mcp', server: 'srv' } })
  const { call } = makeCall({}, { entry, args: { text: 3 } })
  const result = await validateStep(call, nextStub())
  assert.equal(result.status, 'invalid')
  assert.equal(result.message!.split(';').length, 1)
})

// ---- pre hooks ----

test('pre hook step: no hooks → next; a block → blocked with the message, next not called', async () => {
  const hooks = new HookRegistry()
  const step = preHookStep(hooks)
  const { call } = makeCall({ sessionId: 's9' }, { entry: makeEntry(), args: { n: 1 } })
  const next = nextStub()
  assert.equal(await step(call, next), OK)

  const events: PreToolCallEvent[] = []
  hooks.add('pre_tool_call', (event) => { events.push(event); return { action: 'block', message: 'not today' } }, 'guard')
  const blockedNext = nextStub()
  const { call: blockedCall, lines } = makeCall({ sessionId: 's9' }, { entry: makeEntry(), args: { n: 1 } })
  const result = await step(blockedCall, blockedNext)
  assert.deepEqual(result, { status: 'blocked', content: '{"error":"not today"}', message: 'not today', blockedBy: 'guard' })
  assert.equal(blockedNext.calls, 0)
  assert.deepEqual(events, [{ tool: 'probe', args: { n: 1 }, callId: 'call_test', sessionId: 's9' }])
  assert.ok(lines().some((line) => line.msg === 'tool call blocked by a pre_tool_call hook' && line.owner === 'guard'))
})

test('pre hook step: a hook that lets the call through → next answers', async () => {
  const hooks = new HookRegistry()
  hooks.add('pre_tool_call', () => ({ action: 'allow' }))
  const { call } = makeCall({}, { entry: makeEntry() })
  const next = nextStub()
  assert.equal(await preHookStep(hooks)(call, next), OK)
  assert.equal(next.calls, 1)
})

// ---- post hooks ----

test('post hook step: runs after next with tool, args, result, durationMs and status', async () => {
  const hooks = new HookRegistry()
  const events: PostToolCallEvent[] = []
  hooks.add('post_tool_call', (event) => { events.push(event) })
  let clock = 100
  const step = postHookStep(hooks, () => clock)
  const { call } = makeCall({}, { entry: makeEntry(), args: { n: 2 }, startedAt: 100 })
  const next = nextStub({ status: 'error', content: '{"error":"x"}' }, () => { clock = 107.6 })
  const result = await step(call, next)
  assert.deepEqual(result, { status: 'error', content: '{"error":"x"}' })
  assert.deepEqual(events, [{
    tool: 'probe', args: { n: 2 }, callId: 'call_test', sessionId: undefined, result: '{"error":"x"}', durationMs: 8, status: 'error', error_type: 'GW_ERR_TOOL_FAILED', error_message: 'x'
  }])
})

test('post hook step: a clock that goes backwards gives durationMs 0, not a negative', async () => {
  const hooks = new HookRegistry()
  const durations: number[] = []
  hooks.add('post_tool_call', (event) => { durations.push(event.durationMs) })
  const { call } = makeCall({}, { entry: makeEntry(), startedAt: 50 })
  await postHookStep(hooks, () => 10)(call, nextStub())
  assert.deepEqual(durations, [0])
})

test('post hook step: the statuses outside the tool call (not_found, unavailable) are not observed', async () => {
  const hooks = new HookRegistry()
  const statuses: string[] = []
  hooks.add('post_tool_call', (event) => { statuses.push(event.status) })
  const step = postHookStep(hooks, () => 0)
  for (const status of ['ok', 'error', 'blocked', 'timeout', 'cancelled', 'invalid', 'not_found', 'unavailable'] as const) {
    const { call } = makeCall({}, { entry: makeEntry() })
    await step(call, nextStub({ status, content: '{}' }))
  }
  assert.deepEqual(statuses, ['ok', 'error', 'blocked', 'timeout', 'cancelled', 'invalid'])
})

// ---- transform ----

test('transform step: replaces the content of ok and error results, keeps their status', async () => {
  const hooks = new HookRegistry()
  hooks.add('transform_tool_result', (event) => `${event.status}:${event.result}`)
  const step = transformStep(hooks, () => 0)
  const { call } = makeCall({}, { entry: makeEntry() })
  assert.deepEqual(await step(call, nextStub({ status: 'ok', content: 'raw' })), { status: 'ok', content: 'ok:raw' })
  assert.deepEqual(await step(call, nextStub({ status: 'error', content: 'bad', message: 'm' })), { status: 'error', content: 'error:bad', message: 'm' })
})

test('transform step: results the tool did not produce (blocked, invalid, timeout) are not transformed', async () => {
  const hooks = new HookRegistry()
  let calls = 0
  hooks.add('transform_tool_result', () => { calls++; return 'replaced' })
  const step = transformStep(hooks, () => 0)
  for (const status of ['blocked', 'invalid', 'timeout', 'cancelled'] as const) {
    const { call } = makeCall({}, { entry: makeEntry() })
    const original = { status, content: '{"error":"x"}' }
    assert.equal(await step(call, nextStub(original)), original)
  }
  assert.equal(calls, 0)
})

test('transform step: a hook returning a non-string leaves the result as is', async () => {
  const hooks = new HookRegistry()
  hooks.add('transform_tool_result', () => ({ not: 'a string' }))
  const { call } = makeCall({}, { entry: makeEntry() })
  assert.equal(await transformStep(hooks, () => 0)(call, nextStub()), OK)
})

// ---- truncate ----

test('truncate step: caps the content by maxChars(call) and records the original length', async () => {
  const step = truncateStep(() => 100)
  const { call } = makeCall({}, { entry: makeEntry() })
  const long = 'h'.repeat(300) + 't'.repeat(300)
  const result = await step(call, nextStub({ status: 'ok', content: long }))
  assert.equal(result.status, 'ok')
  assert.equal(result.truncated, true)
  assert.equal(result.originalLength, 600)
  assert.ok(result.content.length <= 100)
  assert.match(result.content, /^h+\n\n\[\.\.\. truncated \d+ of 600 characters \.\.\.\]\n\nt+$/)
})

test('truncate step: a result within the cap comes back as it was', async () => {
  const { call } = makeCall({}, { entry: makeEntry() })
  assert.equal(await truncateStep(() => 100)(call, nextStub()), OK)
})

test('truncate step: without an entry (lookup answered) nothing is cut and maxChars is not asked', async () => {
  let asked = 0
  const step = truncateStep(() => { asked++; return 1 })
  const { call } = makeCall()
  const notFound: StepResult = { status: 'not_found', content: '{"error":"Unknown tool: x"}' }
  assert.equal(await step(call, nextStub(notFound)), notFound)
  assert.equal(asked, 0)
})

// ---- invoke ----

test('invoke step: calls the handler with the args and its context; ok for a string', async () => {
  const seen: Array<{ args: Record<string, unknown>, ctx: ToolContext }> = []
  // The configuration the call started with, whole: the handler reads its own parts of it.
  const config = { ...DEFAULT_DISPATCH_CONFIG, feature: true }
  const entry = makeEntry({ handler: (args, ctx) => { seen.push({ args, ctx }); return 'done' } })
  const { call } = makeCall({ sessionId: 'sess' }, { entry, args: { n: 1 }, config })
  const result = await invokeStep({ timeoutOf: () => 1_000 })(call, nextStub())
  assert.deepEqual(result, { status: 'ok', content: 'done' })
  assert.equal(seen.length, 1)
  assert.equal(seen[0].args, call.args)
  assert.ok(seen[0].ctx.signal instanceof AbortSignal)
  assert.equal(seen[0].ctx.signal.aborted, false)
  assert.equal(seen[0].ctx.callId, 'call_test')
  assert.equal(seen[0].ctx.sessionId, 'sess')
  assert.equal(seen[0].ctx.logger, call.logger)
  assert.equal(seen[0].ctx.config, config)
})

test('invoke step: never calls next (it is the last step)', async () => {
  const { call } = makeCall({}, { entry: makeEntry() })
  const next = nextStub()
  await invokeStep({ timeoutOf: () => 1_000 })(call, next)
  assert.equal(next.calls, 0)
})

test('invoke step: a {"error": ...} result is an error; non-strings are errors naming the type', async () => {
  const cases: Array<[unknown, string, RegExp | undefined]> = [
    ['{"error":"x"}', 'error', undefined],
    ['{"error":""}', 'ok', undefined],
    [42, 'error', /returned number instead of a string/],
    [{ a: 1 }, 'error', /returned object instead of a string/],
    [[1], 'error', /returned array instead of a string/],
    [undefined, 'error', /returned undefined instead of a string/],
    [null, 'error', /returned null instead of a string/]
  ]
  for (const [value, status, pattern] of cases) {
    const entry = makeEntry({ handler: (() => value) as never })
    const { call } = makeCall({}, { entry })
    const result = await invokeStep({ timeoutOf: () => 1_000 })(call, nextStub())
    assert.equal(result.status, status, JSON.stringify(value))
    if (pattern) {
      assert.match(result.message!, pattern)
      assert.match(errorOf(result.content), pattern)
    }
  }
})

test('invoke step: a throw becomes an error with the class and the message only', async () => {
  const entry = makeEntry({ handler: async () => { throw new Error('disk full') } })
  const { call, lines } = makeCall({}, { entry })
  const result = await invokeStep({ timeoutOf: () => 1_000 })(call, nextStub())
  assert.deepEqual(result, { status: 'error', content: '{"error":"Error: disk full"}', message: 'Error: disk full' })
  assert.ok(lines().some((line) => line.msg === 'tool handler threw'))
})

test('invoke step: the timeout aborts the handler signal and answers timeout', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  let signal: AbortSignal | undefined
  let started!: () => void
  const running = new Promise<void>((resolve) => { started = resolve })
  const entry = makeEntry({ handler: (_args, ctx) => { signal = ctx.signal; started(); return new Promise<string>(() => {}) } })
  const { call } = makeCall({}, { entry })
  const pending = invokeStep({ timeoutOf: () => 250 })(call, nextStub())
  await running
  t.mock.timers.tick(249)
  assert.equal(signal!.aborted, false)
  t.mock.timers.tick(1)
  const result = await pending
  assert.equal(result.status, 'timeout')
  assert.equal(result.message, 'Tool probe timed out after 250 ms')
  assert.equal(signal!.aborted, true)
  assert.equal((signal!.reason as DOMException).name, 'TimeoutError')
})

test('invoke step: the caller aborting cancels, and the handler signal fires with the caller reason', async () => {
  const caller = new AbortController()
  let signal: AbortSignal | undefined
  const entry = makeEntry({
    handler: (_args, ctx) => { signal = ctx.signal; queueMicrotask(() => caller.abort(new Error('client left'))); return new Promise<string>(() => {}) }
  })
  const { call } = makeCall({ signal: caller.signal }, { entry })
  const result = await invokeStep({ timeoutOf: () => 60_000 })(call, nextStub())
  assert.equal(result.status, 'cancelled')
  assert.equal(signal!.aborted, true)
  assert.equal((signal!.reason as Error).message, 'client left')
})

test('invoke step: a handler that rejects because its caller left logs at debug, not as a tool fault', async () => {
  const caller = new AbortController()
  let rejected!: () => void
  const settled = new Promise<void>((resolve) => { rejected = resolve })
  const entry = makeEntry({
    handler: (_args, ctx) => {
      queueMicrotask(() => caller.abort(new Error('client left')))
      return new Promise<string>((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => { reject(ctx.signal.reason); setImmediate(rejected) })
      })
    }
  })
  const { call, lines } = makeCall({ signal: caller.signal }, { entry })
  const result = await invokeStep({ timeoutOf: () => 60_000 })(call, nextStub())
  assert.equal(result.status, 'cancelled')
  await settled
  assert.deepEqual(lines().filter((line) => (line.level as number) >= 40).map((line) => line.msg), [])
  assert.ok(lines().some((line) => line.msg === 'tool failed after its call had ended' && line.level === 20))
})

test('invoke step: an already-aborted caller signal cancels without running the handler', async () => {
  let ran = false
  const entry = makeEntry({ handler: () => { ran = true; return 'x' } })
  const { call } = makeCall({ signal: AbortSignal.abort() }, { entry })
  const result = await invokeStep({ timeoutOf: () => 1_000 })(call, nextStub())
  assert.equal(result.status, 'cancelled')
  assert.equal(ran, false)
})

test('sanitizeError: class and message only, never a stack; non-errors described; capped at 2000', () => {
  const err = new Error('boom')
  assert.equal(sanitizeError(err), 'Error: boom')
  assert.equal(sanitizeError(new RangeError('too far')), 'RangeError: too far')
  class QuotaError extends Error {}
  assert.equal(sanitizeError(new QuotaError('over quota')), 'QuotaError: over quota', 'a subclass that keeps the name "Error" is named by its constructor')
  assert.equal(sanitizeError('plain'), 'plain')
  assert.equal(sanitizeError(42), 'non-error value thrown (number)')
  assert.equal(sanitizeError(null), 'non-error value thrown (null)')
  assert.equal(sanitizeError(new Error('')), 'Error: the tool failed without a message')
  const long = sanitizeError(new Error('y'.repeat(10_000)))
  assert.equal(long.length, 2000)
  assert.ok(long.endsWith('…'))
})

test('sanitizeError: the cap never splits a surrogate pair', () => {
  // An emoji across units 1998 and 1999: keeping 1999 units would leave its first half alone.
  const capped = sanitizeError('e'.repeat(1_998) + '😀' + 'tail')
  assert.equal(capped, 'e'.repeat(1_998) + '…')
  const before = sanitizeError('e'.repeat(1_997) + '😀' + 'tail')
  assert.equal(before, 'e'.repeat(1_997) + '😀…')
})
