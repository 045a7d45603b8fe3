// End-to-end tests of Dispatcher.dispatch with a real ToolRegistry, a real AvailabilityChecker and a
// real pino logger writing to a capturing stream: parse, coercion, validation, hooks, deadline,
// cancellation, result checks, truncation, outcome mapping, and the promise never to throw.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AvailabilityChecker } from '../../src/availability/checker.ts'
import { ToolRegistry } from '../../src/registry/registry.ts'
import { toolError, toolResult } from '../../src/registry/tool-result.ts'
import type { RegisterOptions, ToolContext } from '../../src/registry/types.ts'
import { Dispatcher, type DispatcherOptions } from '../../src/dispatch/dispatcher.ts'
import { DEFAULT_DISPATCH_LIMITS, type DispatchConfig, type DispatchLimits, type ToolOverride } from '../../src/dispatch/call/dispatch-config.ts'
import type { PostToolCallEvent } from '../../src/dispatch/call/hooks.ts'
import type { Dispatched, DispatchOutcome } from '../../src/dispatch/call/outcome.ts'
import type { DispatchRequest } from '../../src/dispatch/call/pipeline.ts'
import { captureLogger } from '../helpers/logger.ts'

const STATUSES = ['ok', 'error', 'blocked', 'timeout', 'cancelled', 'invalid', 'unavailable', 'not_found']

/** The invariants every outcome keeps, whatever happened. */
function assertWellFormed ({ outcome, httpStatus }: Dispatched, request: DispatchRequest): void {
  assert.ok(Number.isInteger(outcome.durationMs) && outcome.durationMs >= 0, `durationMs ${outcome.durationMs}`)
  assert.ok(STATUSES.includes(outcome.status), `status ${outcome.status}`)
  assert.equal(outcome.ok, outcome.status === 'ok')
  assert.equal(outcome.tool, request.name)
  assert.equal(typeof outcome.content, 'string')
  assert.equal(typeof outcome.callId, 'string')
  assert.ok(outcome.callId.length > 0)
  if (outcome.ok) {
    assert.equal(outcome.error, undefined)
    assert.equal(httpStatus, 200)
  } else {
    assert.match(outcome.error!.code, /^GW_ERR_[A-Z_]+$/)
    assert.equal(typeof outcome.error!.message, 'string')
  }
}

interface SetupOptions extends Partial<Omit<DispatcherOptions, 'registry' | 'availability' | 'logger' | 'config'>> {
  /** Limits over the defaults. */
  limits?: Partial<DispatchLimits>
  /** The configuration's per-tool overrides. */
  toolOverrides?: Record<string, ToolOverride>
  /** More of the configuration, as handlers see it in ctx.config. */
  config?: Record<string, unknown>
}

/** The configuration a dispatcher reads, from a test's limits, overrides and extra fields. */
function configOf ({ limits, toolOverrides, config }: SetupOptions): DispatchConfig {
  return { ...config, dispatch: { ...DEFAULT_DISPATCH_LIMITS, ...limits }, tools: toolOverrides ?? {} }
}

function setup (options: SetupOptions = {}) {
  const { limits: _limits, toolOverrides: _overrides, config: _config, ...rest } = options
  const registry = new ToolRegistry()
  const captured = captureLogger('trace')
  const availability = new AvailabilityChecker()
  const config = configOf(options)
  const dispatcher = new Dispatcher({ registry, availability, logger: captured.logger, config: () => config, ...rest })
  /** The envelope, once the invariants of the whole answer are checked. */
  const answer = async (request: DispatchRequest): Promise<Dispatched> => {
    const answered = await dispatcher.dispatch(request)
    assertWellFormed(answered, request)
    return answered
  }
  const dispatch = async (request: DispatchRequest): Promise<DispatchOutcome> => (await answer(request)).outcome
  const add = (name: string, extra: Partial<RegisterOptions> = {}) => registry.register({
    name,
    toolset: 'testing',
    schema: { description: name, parameters: { type: 'object', properties: {} } },
    handler: () => toolResult({ ok: true }),
    ...extra
  })
  return { registry, availability, dispatcher, config, answer, dispatch, add, ...captured }
}

/** A handler that records its calls. */
function recorder (answer: (args: Record<string, unknown>) => unknown = () => toolResult('done')) {
  const calls: Array<{ args: Record<string, unknown>, ctx: ToolContext }> = []
  const handler = (args: Record<string, unknown>, ctx: ToolContext) => {
    calls.push({ args, ctx })
    return answer(args) as string
  }
  return { handler, calls }
}

function errorField (content: string): unknown {
  return (JSON.parse(content) as { error?: unknown }).error
}

/** Lets pending promise callbacks run (setImmediate is not mocked in these tests). */
function flush (): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

const NUMBERS = {
  type: 'object',
  properties: { n: { type: 'integer' }, label: { type: 'string' } },
  required: ['n']
}

// ---- success and parsing ----

test('a successful call: ok, content as returned, 200, no error, not truncated', async () => {
  const { add, answer } = setup()
  add('echo', { handler: (args) => toolResult({ echoed: args.text }) })
  const { outcome, httpStatus } = await answer({ name: 'echo', args: { text: 'héllo 😀' } })
  assert.equal(outcome.status, 'ok')
  assert.equal(outcome.content, '{"echoed":"héllo 😀"}')
  assert.equal(httpStatus, 200)
  assert.equal(outcome.truncated, false)
  assert.equal(outcome.originalLength, outcome.content.length)
})

test('arguments as the JSON string a model emits are parsed', async () => {
  const { dispatch, add } = setup()
  const tool = recorder()
  add('echo', { handler: tool.handler })
  const outcome = await dispatch({ name: 'echo', args: '{"text":"hi","nested":{"a":[1]}}' })
  assert.equal(outcome.status, 'ok')
  assert.deepEqual(tool.calls[0].args, { text: 'hi', nested: { a: [1] } })
})

test('an empty string or no arguments at all are {}', async () => {
  const { dispatch, add } = setup()
  const tool = recorder()
  add('noargs', { handler: tool.handler })
  for (const args of ['', undefined]) {
    const outcome = await dispatch({ name: 'noargs', args })
    assert.equal(outcome.status, 'ok')
  }
  assert.deepEqual(tool.calls.map((call) => call.args), [{}, {}])
})

test('invalid JSON, an array or a number as arguments: invalid, 400, a clear message, handler not called', async () => {
  const { add, answer } = setup()
  const tool = recorder()
  add('echo', { handler: tool.handler })
  const cases: Array<[unknown, RegExp]> = [
    ['{"text": "unterminated', /^invalid arguments: not valid JSON/],
    ['[1, 2]', /expected a JSON object, got an array/],
    [['a'], /expected a JSON object, got an array/],
    [7, /expected a JSON object, got a number/],
    ['7', /expected a JSON object, got a number/]
  ]
  for (const [args, pattern] of cases) {
    const { outcome, httpStatus } = await answer({ name: 'echo', args })
    assert.equal(outcome.status, 'invalid', JSON.stringify(args))
    assert.equal(httpStatus, 400)
    assert.equal(outcome.error!.code, 'GW_ERR_INVALID_ARGUMENTS')
    assert.match(outcome.error!.message, pattern)
    assert.match(String(errorField(outcome.content)), pattern)
  }
  assert.equal(tool.calls.length, 0)
})

// ---- coercion and validation ----

test('coercion runs before validation: "5" for an integer parameter passes as 5', async () => {
  const { dispatch, add } = setup()
  const tool = recorder()
  add('count', { schema: { parameters: NUMBERS }, handler: tool.handler })
  assert.equal((await dispatch({ name: 'count', args: { n: '5' } })).status, 'ok')
  assert.equal((await dispatch({ name: 'count', args: '{"n":"6","label":"x"}' })).status, 'ok')
  assert.deepEqual(tool.calls.map((call) => call.args), [{ n: 5 }, { n: 6, label: 'x' }])
})

test('the caller\'s argument object is not modified by coercion', async () => {
  const { dispatch, add } = setup()
  add('count', { schema: { parameters: NUMBERS } })
  const args = { n: '5' }
  await dispatch({ name: 'count', args })
  assert.deepEqual(args, { n: '5' })
})

test('invalid arguments: every failing path named, the missing required one too; 400, handler not called', async () => {
  const { dispatch, add, answer } = setup()
  const tool = recorder()
  const parameters = {
    type: 'object',
    properties: { n: { type: 'integer' }, label: { type: 'string' }, mode: { enum: ['a', 'b'] } },
    required: ['n', 'mode']
  }
  add('strict', { schema: { parameters }, handler: tool.handler })

  const { outcome: twoWrong, httpStatus } = await answer({ name: 'strict', args: { n: 'five', label: 3, mode: 'a' } })
  assert.equal(twoWrong.status, 'invalid')
  assert.equal(twoWrong.ok, false)
  assert.equal(httpStatus, 400)
  assert.equal(twoWrong.error!.code, 'GW_ERR_INVALID_ARGUMENTS')
  assert.match(twoWrong.error!.message, /\/n: must be integer/)
  assert.match(twoWrong.error!.message, /\/label: must be string/)
  assert.match(twoWrong.error!.message, /tool strict/)
  assert.deepEqual(Object.keys(JSON.parse(twoWrong.content)), ['error'])
  assert.equal(errorField(twoWrong.content), twoWrong.error!.message)

  const missing = await dispatch({ name: 'strict', args: { n: 1 } })
  assert.equal(missing.status, 'invalid')
  assert.match(missing.error!.message, /\/mode: is required/)
  assert.equal(tool.calls.length, 0)
})

test('a tool whose parameter schema does not compile is unavailable (its fault, not the caller\'s), nothing throws', async () => {
  const { add, answer } = setup()
  const tool = recorder()
  add('broken', { schema: { parameters: { type: 'object', properties: { a: { type: 'nonsense' } } } }, handler: tool.handler })
  for (let i = 0; i < 2; i++) {
    const { outcome, httpStatus } = await answer({ name: 'broken', args: { a: 1 } })
    assert.equal(outcome.status, 'unavailable')
    assert.equal(httpStatus, 503)
    assert.match(outcome.error!.message, /parameter schema is invalid/)
    assert.match(outcome.error!.message, /properties\/a\/type/)
  }
  assert.equal(tool.calls.length, 0)
})

test('two tools whose schemas share an $id both work, each by its own schema', async () => {
  const { dispatch, add } = setup()
  const id = 'https://tools.example/params.json'
  add('first', { schema: { parameters: { $id: id, type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] } } })
  add('second', { schema: { parameters: { $id: id, type: 'object', properties: { b: { type: 'string' } }, required: ['b'] } } })
  assert.equal((await dispatch({ name: 'first', args: { a: 1 } })).status, 'ok')
  assert.equal((await dispatch({ name: 'second', args: { b: 'x' } })).status, 'ok')
  const wrong = await dispatch({ name: 'second', args: { a: 1 } })
  assert.equal(wrong.status, 'invalid')
  assert.match(wrong.error!.message, /\/b: is required/)
})

// ---- pre_tool_call ----

test('a pre_tool_call block vetoes: blocked, 403, the hook\'s message as {"error"}, handler not called', async () => {
  const { dispatcher, add, lines, answer } = setup()
  const tool = recorder()
  add('rm', { handler: tool.handler })
  dispatcher.hooks.add('pre_tool_call', (event) => event.tool === 'rm' ? { action: 'block', message: 'rm is not allowed here' } : undefined, 'policy')
  const { outcome, httpStatus } = await answer({ name: 'rm', args: { path: '/' } })
  assert.equal(outcome.status, 'blocked')
  assert.equal(httpStatus, 403)
  assert.equal(outcome.error!.code, 'GW_ERR_BLOCKED')
  assert.equal(outcome.error!.message, 'rm is not allowed here')
  assert.equal(outcome.content, '{"error":"rm is not allowed here"}')
  assert.equal(tool.calls.length, 0)
  assert.ok(lines().some((line) => line.msg === 'tool call blocked by a pre_tool_call hook' && line.owner === 'policy'))
})

test('pre_tool_call hooks see the coerced arguments, callId and sessionId', async () => {
  const { dispatch, dispatcher, add } = setup()
  add('count', { schema: { parameters: NUMBERS } })
  const seen: unknown[] = []
  dispatcher.hooks.add('pre_tool_call', (event) => { seen.push(event) })
  await dispatch({ name: 'count', args: '{"n":"3"}', callId: 'call_42', sessionId: 'sess-1' })
  assert.deepEqual(seen, [{ tool: 'count', args: { n: 3 }, callId: 'call_42', sessionId: 'sess-1' }])
})

test('malformed pre_tool_call directives are ignored and the call runs', async () => {
  const { dispatch, dispatcher, add } = setup()
  const tool = recorder()
  add('echo', { handler: tool.handler })
  dispatcher.hooks.add('pre_tool_call', () => ({ action: 'block' }))
  dispatcher.hooks.add('pre_tool_call', () => ({ action: 'allow' }))
  dispatcher.hooks.add('pre_tool_call', () => 'block')
  dispatcher.hooks.add('pre_tool_call', () => ({ action: 'block', message: '' }))
  const outcome = await dispatch({ name: 'echo', args: {} })
  assert.equal(outcome.status, 'ok')
  assert.equal(tool.calls.length, 1)
})

test('a throwing pre_tool_call hook is logged and ignored', async () => {
  const { dispatch, dispatcher, add, lines } = setup()
  const tool = recorder()
  add('echo', { handler: tool.handler })
  dispatcher.hooks.add('pre_tool_call', () => { throw new Error('plugin bug') }, 'buggy-plugin')
  const outcome = await dispatch({ name: 'echo', args: {} })
  assert.equal(outcome.status, 'ok')
  assert.equal(tool.calls.length, 1)
  const fault = lines().find((line) => line.msg === 'hook threw; ignored')
  assert.ok(fault)
  assert.equal(fault.owner, 'buggy-plugin')
  assert.equal((fault.err as { message: string }).message, 'plugin bug')
})

test('pre_tool_call hooks run in registration order; the first block wins and later hooks do not run', async () => {
  const { dispatch, dispatcher, add } = setup()
  add('echo')
  const order: string[] = []
  dispatcher.hooks.add('pre_tool_call', () => { order.push('one') })
  dispatcher.hooks.add('pre_tool_call', () => { order.push('two'); return { action: 'block', message: 'second' } })
  dispatcher.hooks.add('pre_tool_call', () => { order.push('three'); return { action: 'block', message: 'third' } })
  const outcome = await dispatch({ name: 'echo', args: {} })
  assert.equal(outcome.status, 'blocked')
  assert.equal(outcome.content, '{"error":"second"}')
  assert.deepEqual(order, ['one', 'two'])
})

// ---- handler context ----

test('the handler gets an AbortSignal, the callId, the sessionId, a child logger and the config', async () => {
  const { dispatch, add, lines, config } = setup({ config: { region: 'eu', nested: { a: 1 } } })
  const tool = recorder()
  add('ctx', {
    handler: (args, ctx) => {
      ctx.logger.info({ marker: 'from-handler' }, 'handler speaking')
      return tool.handler(args, ctx)
    }
  })
  const outcome = await dispatch({ name: 'ctx', args: {}, callId: 'call_abc', sessionId: 'session-7' })
  assert.equal(outcome.callId, 'call_abc')
  const { ctx } = tool.calls[0]
  assert.ok(ctx.signal instanceof AbortSignal)
  assert.equal(ctx.signal.aborted, false)
  assert.equal(ctx.callId, 'call_abc')
  assert.equal(ctx.sessionId, 'session-7')
  assert.equal(ctx.config, config)
  const line = lines().find((l) => l.marker === 'from-handler')
  assert.ok(line, 'the handler logged through ctx.logger')
  assert.equal(line.callId, 'call_abc')
  assert.equal(line.tool, 'ctx')
})

test('without a callId a unique one is generated and handed to the handler', async () => {
  const { dispatch, add } = setup()
  const tool = recorder()
  add('ctx', { handler: tool.handler })
  const first = await dispatch({ name: 'ctx', args: {} })
  const second = await dispatch({ name: 'ctx', args: {} })
  assert.match(first.callId, /^call_[0-9a-f-]{36}$/)
  assert.notEqual(first.callId, second.callId)
  assert.deepEqual(tool.calls.map((call) => call.ctx.callId), [first.callId, second.callId])
})

// ---- deadline ----

test('a handler that ignores its signal is timed out: 504, result discarded and logged later', async () => {
  const { add, waitFor, answer } = setup()
  let signal: AbortSignal | undefined
  add('wedged', {
    timeoutMs: 50,
    handler: (_args, ctx) => {
      signal = ctx.signal
      // Ignores its signal on purpose and answers long after its deadline.
      return new Promise((resolve) => setTimeout(() => resolve(toolResult('too late')), 2_000))
    }
  })
  const late = waitFor((line) => line.msg === 'late tool result discarded: the call had already ended')
  const { outcome, httpStatus } = await answer({ name: 'wedged', args: {} })
  assert.equal(outcome.status, 'timeout')
  assert.equal(httpStatus, 504)
  assert.equal(outcome.error!.code, 'GW_ERR_TIMEOUT')
  assert.equal(outcome.error!.message, 'Tool wedged timed out after 50 ms')
  assert.equal(outcome.content, '{"error":"Tool wedged timed out after 50 ms"}')
  assert.ok(outcome.durationMs < 1_500, `durationMs ${outcome.durationMs}`)
  assert.equal(signal!.aborted, true)
  assert.equal((signal!.reason as DOMException).name, 'TimeoutError')
  const line = await late
  assert.equal(line.level, 40)
  assert.equal(line.tool, 'wedged')
  assert.equal(outcome.content.includes('too late'), false)
})

test('the default deadline (60 s) applies to a tool that sets none', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const { dispatcher, add } = setup()
  assert.equal(dispatcher.limits.defaultTimeoutMs, 60_000)
  let started!: () => void
  const running = new Promise<void>((resolve) => { started = resolve })
  add('slow', { handler: () => { started(); return new Promise<string>(() => {}) } })
  let settled: DispatchOutcome | undefined
  const pending = dispatcher.dispatch({ name: 'slow', args: {} }).then(({ outcome }) => { settled = outcome; return outcome })
  await running
  t.mock.timers.tick(59_999)
  await flush()
  assert.equal(settled, undefined)
  t.mock.timers.tick(1)
  const outcome = await pending
  assert.equal(outcome.status, 'timeout')
  assert.equal(outcome.error!.message, 'Tool slow timed out after 60000 ms')
})

/** Runs a call to a never-answering tool under mocked timers and returns the deadline it got. */
async function deadlineOf (t: { mock: { timers: { tick: (ms: number) => void } } }, dispatcher: Dispatcher, request: DispatchRequest, started: Promise<void>) {
  const state: { outcome?: DispatchOutcome } = {}
  const pending = dispatcher.dispatch(request).then(({ outcome }) => { state.outcome = outcome })
  await started
  // One millisecond at a time, so the tick that ends the call is the deadline it ran under.
  let elapsed = 0
  while (state.outcome === undefined && elapsed < 10_000) {
    t.mock.timers.tick(1)
    elapsed++
    await flush()
  }
  await pending
  assert.equal(state.outcome!.status, 'timeout')
  return { elapsed, message: state.outcome!.error!.message }
}

function neverAnswering () {
  let started!: () => void
  const running = new Promise<void>((resolve) => { started = resolve })
  return { running, handler: () => { started(); return new Promise<string>(() => {}) } }
}

test('a per-call timeoutMs is capped by limits.maxTimeoutMs', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const { dispatcher, add } = setup({ limits: { maxTimeoutMs: 40 } })
  const tool = neverAnswering()
  add('slow', { timeoutMs: 10_000, handler: tool.handler })
  const { elapsed, message } = await deadlineOf(t, dispatcher, { name: 'slow', args: {}, timeoutMs: 5_000 }, tool.running)
  assert.equal(elapsed, 40)
  assert.equal(message, 'Tool slow timed out after 40 ms')
})

test('a per-call timeoutMs within the cap replaces the tool\'s own', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const { dispatcher, add } = setup()
  const tool = neverAnswering()
  add('slow', { timeoutMs: 10_000, handler: tool.handler })
  const { elapsed } = await deadlineOf(t, dispatcher, { name: 'slow', args: {}, timeoutMs: 25 }, tool.running)
  assert.equal(elapsed, 25)
})

test('toolOverrides from config replace the tool\'s declared timeout', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const { dispatcher, add } = setup({ toolOverrides: { slow: { timeoutMs: 30 } } })
  const tool = neverAnswering()
  add('slow', { timeoutMs: 10_000, handler: tool.handler })
  const { elapsed, message } = await deadlineOf(t, dispatcher, { name: 'slow', args: {} }, tool.running)
  assert.equal(elapsed, 30)
  assert.equal(message, 'Tool slow timed out after 30 ms')
})

test('limits.defaultTimeoutMs replaces the 60 s default', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const { dispatcher, add } = setup({ limits: { defaultTimeoutMs: 15 } })
  const tool = neverAnswering()
  add('slow', { handler: tool.handler })
  const { elapsed } = await deadlineOf(t, dispatcher, { name: 'slow', args: {} }, tool.running)
  assert.equal(elapsed, 15)
})

test('a deadline beyond what setTimeout can hold (2^31 - 1 ms) does not fire at once', async () => {
  // Node runs a timer with a longer delay after 1 ms; the answer below comes after 20 ms.
  const answerLater = () => new Promise<string>((resolve) => setTimeout(() => resolve(toolResult('done')), 20))
  const { dispatch, add } = setup({ toolOverrides: { forever: { timeoutMs: Infinity } } })
  add('patient', { timeoutMs: 3_000_000_000, handler: answerLater })
  add('forever', { handler: answerLater })
  assert.equal((await dispatch({ name: 'patient', args: {} })).status, 'ok')
  assert.equal((await dispatch({ name: 'forever', args: {} })).status, 'ok')
})

test('partial limits keep the other defaults', () => {
  const { dispatcher } = setup({ limits: { maxTimeoutMs: 5 } })
  assert.deepEqual(dispatcher.limits, { ...DEFAULT_DISPATCH_LIMITS, maxTimeoutMs: 5 })
})

// ---- cancellation ----

test('the caller aborting mid-call: cancelled, 499, and the handler\'s signal fires', async () => {
  const { add, waitFor, lines, answer } = setup()
  const caller = new AbortController()
  let signal: AbortSignal | undefined
  add('long', {
    handler: (_args, ctx) => {
      signal = ctx.signal
      setImmediate(() => caller.abort())
      return new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve(toolResult('stopped'))))
    }
  })
  const { outcome, httpStatus } = await answer({ name: 'long', args: {}, signal: caller.signal })
  assert.equal(outcome.status, 'cancelled')
  assert.equal(httpStatus, 499)
  assert.equal(outcome.error!.code, 'GW_ERR_CANCELLED')
  assert.equal(signal!.aborted, true)
  // The handler's answer after its caller left is routine, not a fault of the tool: no warning.
  const late = await waitFor((line) => line.msg === 'late tool result discarded: the call had been cancelled')
  assert.equal(late.level, 20)
  assert.deepEqual(lines().filter((line) => (line.level as number) >= 40), [])
})

test('an already-aborted caller signal: cancelled without running the handler', async () => {
  const { dispatch, add } = setup()
  const tool = recorder()
  add('long', { handler: tool.handler })
  const outcome = await dispatch({ name: 'long', args: {}, signal: AbortSignal.abort() })
  assert.equal(outcome.status, 'cancelled')
  assert.equal(outcome.error!.code, 'GW_ERR_CANCELLED')
  assert.equal(tool.calls.length, 0)
})

// ---- post_tool_call and transform_tool_result ----

test('post_tool_call gets { tool, args, result, durationMs, status } for ok, error, blocked, invalid, timeout, cancelled', async () => {
  let clock = 1_000
  const { dispatch, dispatcher, add } = setup({ now: () => clock })
  add('fine', { schema: { parameters: NUMBERS }, handler: () => { clock += 12.4; return toolResult('fine') } })
  add('fails', { handler: () => toolError('nope') })
  add('guarded')
  add('stuck', { timeoutMs: 5, handler: () => new Promise<string>(() => {}) })
  add('left', { handler: () => new Promise<string>(() => {}) })
  dispatcher.hooks.add('pre_tool_call', (event) => event.tool === 'guarded' ? { action: 'block', message: 'guarded' } : undefined)
  const events: PostToolCallEvent[] = []
  dispatcher.hooks.add('post_tool_call', (event) => { events.push(event) })

  const ok = await dispatch({ name: 'fine', args: { n: '2' } })
  await dispatch({ name: 'fails', args: {} })
  await dispatch({ name: 'guarded', args: { x: 1 } })
  await dispatch({ name: 'fine', args: { n: 'two' } })
  await dispatch({ name: 'stuck', args: {} })
  await dispatch({ name: 'left', args: {}, signal: AbortSignal.abort() })
  await dispatch({ name: 'unknown-tool', args: {} })

  // Issue 11: post hooks see calls to unknown tools too (an audit log misses nothing).
  assert.deepEqual(events.map((e) => [e.tool, e.status]), [
    ['fine', 'ok'], ['fails', 'error'], ['guarded', 'blocked'], ['fine', 'invalid'], ['stuck', 'timeout'], ['left', 'cancelled'],
    ['unknown-tool', 'not_found']
  ])
  assert.deepEqual(events[0], {
    tool: 'fine', args: { n: 2 }, callId: ok.callId, sessionId: undefined, result: '"fine"', durationMs: 12, status: 'ok'
  })
  assert.equal(ok.durationMs, 12)
  assert.equal(events[1].result, '{"error":"nope"}')
  assert.equal(events[2].result, '{"error":"guarded"}')
  assert.deepEqual(events[2].args, { x: 1 })
  assert.match(events[3].result, /\/n: must be integer/)
  assert.match(events[4].result, /timed out after 5 ms/)
  // Every failure says what kind and why, so that an audit hook need not parse the result.
  assert.equal(events[0].error_type, undefined)
  assert.deepEqual([events[1].error_type, events[1].error_message], ['GW_ERR_TOOL_FAILED', 'nope'])
  assert.deepEqual([events[2].error_type, events[2].error_message], ['GW_ERR_BLOCKED', 'guarded'])
  assert.equal(events[3].error_type, 'GW_ERR_INVALID_ARGUMENTS')
  assert.match(events[3].error_message!, /\/n: must be integer/)
  assert.deepEqual([events[4].error_type, events[4].error_message], ['GW_ERR_TIMEOUT', 'Tool stuck timed out after 5 ms'])
  assert.equal(events[5].error_type, 'GW_ERR_CANCELLED')
  assert.equal(events[6].error_type, 'GW_ERR_TOOL_NOT_FOUND')
  assert.match(events[6].error_message!, /unknown-tool/)
  for (const event of events) assert.ok(Number.isInteger(event.durationMs) && event.durationMs >= 0)
})

test('a throwing post_tool_call hook does not change the outcome', async () => {
  const { dispatch, dispatcher, add, lines } = setup()
  add('echo')
  dispatcher.hooks.add('post_tool_call', () => { throw new Error('observer down') })
  const outcome = await dispatch({ name: 'echo', args: {} })
  assert.equal(outcome.status, 'ok')
  assert.ok(lines().some((line) => line.msg === 'hook threw; ignored' && line.hook === 'post_tool_call'))
})

test('transform_tool_result: the first string replaces the result; non-strings are ignored; post hooks saw the original', async () => {
  const { dispatch, dispatcher, add } = setup()
  add('echo', { handler: () => toolResult({ secret: 'abc' }) })
  const observed: string[] = []
  dispatcher.hooks.add('post_tool_call', (event) => { observed.push(event.result) })
  dispatcher.hooks.add('transform_tool_result', () => 42)
  dispatcher.hooks.add('transform_tool_result', () => ({ replaced: true }))
  dispatcher.hooks.add('transform_tool_result', (event) => event.result.replace('abc', '***'))
  dispatcher.hooks.add('transform_tool_result', () => 'second string, never used')
  const outcome = await dispatch({ name: 'echo', args: {} })
  assert.equal(outcome.status, 'ok')
  assert.equal(outcome.content, '{"secret":"***"}')
  assert.deepEqual(observed, ['{"secret":"abc"}'])
})

test('a transformed result is still truncated to the cap', async () => {
  const { dispatch, dispatcher, add } = setup()
  add('echo', { maxResultSizeChars: 100 })
  dispatcher.hooks.add('transform_tool_result', () => 'x'.repeat(1_000))
  const outcome = await dispatch({ name: 'echo', args: {} })
  assert.equal(outcome.truncated, true)
  assert.equal(outcome.originalLength, 1_000)
  assert.ok(outcome.content.length <= 100)
})

// ---- truncation ----

/** Indexes of unpaired surrogate code units. */
function loneSurrogates (text: string): number[] {
  const lone: number[] = []
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0xD800 && code <= 0xDBFF && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xDC00 && next <= 0xDFFF) { i++; continue }
    }
    if (code >= 0xD800 && code <= 0xDFFF) lone.push(i)
  }
  return lone
}

test('a long result keeps head and tail with a marker, says truncated and the original length', async () => {
  const { dispatch, add } = setup()
  // Emoji everywhere, so that whatever the cut points they fall next to or inside a pair.
  const result = 'START' + '😀a'.repeat(2_000) + '😀END'
  add('logs', { maxResultSizeChars: 300, handler: () => result })
  const outcome = await dispatch({ name: 'logs', args: {} })
  assert.equal(outcome.status, 'ok')
  assert.equal(outcome.truncated, true)
  assert.equal(outcome.originalLength, result.length)
  assert.ok(outcome.content.length <= 300, `length ${outcome.content.length}`)
  assert.ok(outcome.content.startsWith('START'))
  assert.ok(outcome.content.endsWith('END'))
  assert.match(outcome.content, new RegExp(`\\[\\.\\.\\. truncated \\d+ of ${result.length} characters \\.\\.\\.\\]`))
  assert.deepEqual(loneSurrogates(outcome.content), [])
})

test('emoji exactly at both cut points are never split', async () => {
  const { dispatch, add } = setup()
  // For cap 200 and 1000 characters, the head keeps 61 and the tail 92 units (the marker is 47).
  const chars = 'x'.repeat(1_000).split('')
  chars.splice(60, 2, '😀'[0], '😀'[1])
  chars.splice(1_000 - 92 - 1, 2, '😀'[0], '😀'[1])
  const result = chars.join('')
  add('edge', { maxResultSizeChars: 200, handler: () => result })
  const outcome = await dispatch({ name: 'edge', args: {} })
  assert.equal(outcome.truncated, true)
  assert.ok(outcome.content.length <= 200)
  assert.deepEqual(loneSurrogates(outcome.content), [])
  const [head, tail] = outcome.content.split(/\n\n\[\.\.\. truncated \d+ of 1000 characters \.\.\.\]\n\n/)
  assert.equal(head, 'x'.repeat(60))
  assert.equal(tail, 'x'.repeat(91))
})

test('an Infinity cap never truncates', async () => {
  const { dispatch, add } = setup()
  const big = 'y'.repeat(250_000)
  add('huge', { maxResultSizeChars: Infinity, handler: () => big })
  const outcome = await dispatch({ name: 'huge', args: {} })
  assert.equal(outcome.truncated, false)
  assert.equal(outcome.content, big)
})

test('the default cap is 100 000 characters', async () => {
  const { dispatch, add } = setup()
  add('big', { handler: () => 'z'.repeat(100_001) })
  const outcome = await dispatch({ name: 'big', args: {} })
  assert.equal(outcome.truncated, true)
  assert.ok(outcome.content.length <= 100_000)
})

test('a per-call maxResultChars applies, capped by limits.maxResultChars', async () => {
  const { dispatch, add } = setup({ limits: { maxResultChars: 120 } })
  add('huge', { maxResultSizeChars: Infinity, handler: () => 'w'.repeat(5_000) })
  const capped = await dispatch({ name: 'huge', args: {}, maxResultChars: 10_000 })
  assert.equal(capped.truncated, true)
  assert.ok(capped.content.length <= 120)
  assert.ok(capped.content.length > 100)
  const smaller = await dispatch({ name: 'huge', args: {}, maxResultChars: 80 })
  assert.ok(smaller.content.length <= 80)
  const untouched = await dispatch({ name: 'huge', args: {} })
  assert.equal(untouched.truncated, false)
})

test('toolOverrides from config replace the tool\'s declared result cap', async () => {
  const { dispatch, add } = setup({ toolOverrides: { chatty: { maxResultSizeChars: 90 } } })
  add('chatty', { maxResultSizeChars: 100_000, handler: () => 'v'.repeat(1_000) })
  const outcome = await dispatch({ name: 'chatty', args: {} })
  assert.equal(outcome.truncated, true)
  assert.ok(outcome.content.length <= 90)
})

// ---- handler results and failures ----

test('a handler returning a non-string: status error naming the type', async () => {
  const { dispatch, add } = setup()
  const values: Array<[unknown, string]> = [[42, 'number'], [{ a: 1 }, 'object'], [undefined, 'undefined'], [null, 'null']]
  for (const [value, type] of values) {
    const name = `returns_${type}`
    add(name, { handler: (() => value) as never })
    const outcome = await dispatch({ name, args: {} })
    assert.equal(outcome.status, 'error', type)
    assert.equal(outcome.error!.code, 'GW_ERR_TOOL_FAILED')
    assert.match(outcome.error!.message, new RegExp(`returned ${type} instead of a string`))
    assert.match(String(errorField(outcome.content)), new RegExp(`returned ${type} instead of a string`))
    const fields = JSON.parse(outcome.content) as Record<string, unknown>
    assert.deepEqual([fields.error_type, fields.tool, fields.result_type], ['invalid_result_type', name, type], 'the structured fields beside the sentence')
  }
})

test('a throwing handler: error with the class and message only, no stack trace, capped at 2000', async () => {
  const { dispatch, add, lines, answer } = setup()
  add('throws', { handler: () => { throw new Error('connection refused') } })
  add('rejects', { handler: async () => { throw new TypeError('bad input ' + 'q'.repeat(10_000)) } })
  add('throws_string', { handler: () => { throw 'just a string' } }) // eslint-disable-line no-throw-literal

  const { outcome: plain, httpStatus } = await answer({ name: 'throws', args: {} })
  assert.equal(plain.status, 'error')
  assert.equal(httpStatus, 200)
  assert.equal(plain.content, '{"error":"Error: connection refused"}')
  assert.equal(plain.error!.message, 'Error: connection refused')

  const long = await dispatch({ name: 'rejects', args: {} })
  assert.equal(long.status, 'error')
  const message = String(errorField(long.content))
  assert.ok(message.startsWith('TypeError: bad input qqq'))
  assert.ok(message.length <= 2_000, `length ${message.length}`)
  assert.ok(long.error!.message.length <= 2_000)
  for (const text of [plain.content, long.content, long.error!.message]) {
    assert.equal(text.includes('    at '), false)
    assert.equal(text.includes('dispatcher.test'), false)
  }
  assert.equal((await dispatch({ name: 'throws_string', args: {} })).content, '{"error":"just a string"}')
  // The stack is for the operator's log, not for the model.
  assert.ok(lines().some((line) => line.msg === 'tool handler threw' && String((line.err as { stack?: string }).stack).includes('    at ')))
})

test('a {"error": ...} result string: ok false, status error, 200, GW_ERR_TOOL_FAILED', async () => {
  const { add, answer } = setup()
  add('soft_fail', { handler: () => toolError('x') })
  const { outcome, httpStatus } = await answer({ name: 'soft_fail', args: {} })
  assert.equal(outcome.ok, false)
  assert.equal(outcome.status, 'error')
  assert.equal(httpStatus, 200)
  assert.equal(outcome.error!.code, 'GW_ERR_TOOL_FAILED')
  assert.equal(outcome.error!.message, 'x')
  assert.equal(outcome.content, '{"error":"x"}')
})

// ---- lookup ----

test('an unknown tool: not_found, 404, content exactly {"error":"Unknown tool: <name>"}', async () => {
  const { answer } = setup()
  const { outcome, httpStatus } = await answer({ name: 'no_such_tool', args: {} })
  assert.equal(outcome.status, 'not_found')
  assert.equal(httpStatus, 404)
  assert.equal(outcome.error!.code, 'GW_ERR_TOOL_NOT_FOUND')
  assert.equal(outcome.content, '{"error":"Unknown tool: no_such_tool"}')
  assert.equal(outcome.error!.message, 'Unknown tool: no_such_tool')
})

test('an unknown tool with a name that needs escaping still yields valid JSON', async () => {
  const { dispatch } = setup()
  const name = 'evil"name\n'
  const outcome = await dispatch({ name, args: {} })
  assert.deepEqual(JSON.parse(outcome.content), { error: `Unknown tool: ${name}` })
})

test('a tool whose checkFn returns false: unavailable, 503, with the reason; handler not called', async () => {
  const { dispatch, add, answer } = setup()
  const tool = recorder()
  add('offline', { checkFn: () => false, handler: tool.handler })
  add('no_key', { checkFn: () => ({ available: false, reason: 'API key rejected' }), handler: tool.handler })
  const { outcome: offline, httpStatus } = await answer({ name: 'offline', args: {} })
  assert.equal(offline.status, 'unavailable')
  assert.equal(httpStatus, 503)
  assert.equal(offline.error!.code, 'GW_ERR_TOOL_UNAVAILABLE')
  assert.match(offline.error!.message, /availability check returned false/)
  const noKey = await dispatch({ name: 'no_key', args: {} })
  assert.equal(noKey.content, '{"error":"Tool no_key is unavailable: API key rejected"}')
  assert.equal(tool.calls.length, 0)
})

test('a deregistered tool is unknown to the next call', async () => {
  const { dispatch, add, registry } = setup()
  add('temp')
  assert.equal((await dispatch({ name: 'temp', args: {} })).status, 'ok')
  registry.deregister('temp')
  assert.equal((await dispatch({ name: 'temp', args: {} })).status, 'not_found')
})

// ---- never throws ----

test('dispatch never throws: a registry whose snapshot() throws gives an error outcome and a logged fault', async () => {
  const { dispatch, registry, lines } = setup()
  registry.snapshot = () => { throw new Error('snapshot exploded at /secret/path') }
  const outcome = await dispatch({ name: 'anything', args: {} })
  assert.equal(outcome.status, 'error')
  assert.equal(outcome.error!.code, 'GW_ERR_TOOL_FAILED')
  assert.equal(outcome.error!.message, 'internal error while running the tool; the gateway log has the details')
  assert.equal(errorField(outcome.content), outcome.error!.message)
  assert.equal(outcome.content.includes('secret'), false)
  const fault = lines().find((line) => line.msg === 'unexpected fault in the dispatch pipeline')
  assert.ok(fault)
  assert.equal(fault.level, 50)
  assert.equal(fault.tool, 'anything')
  assert.match((fault.err as { message: string }).message, /snapshot exploded/)
})

test('dispatch never throws: a failing availability checker gives an error outcome', async () => {
  const { dispatch, add, availability } = setup()
  add('checked', { checkFn: () => true })
  availability.tool = async () => { throw new Error('checker broke') }
  const outcome = await dispatch({ name: 'checked', args: {} })
  assert.equal(outcome.status, 'error')
  assert.match(outcome.error!.message, /internal error/)
})

// ---- durations and outcome mapping ----

test('durationMs is the injected clock\'s elapsed time, rounded; a clock going back gives 0', async () => {
  let clock = 0
  const { dispatch, add } = setup({ now: () => clock })
  add('tick', { handler: () => { clock += 7.6; return '"x"' } })
  add('back', { handler: () => { clock -= 100; return '"x"' } })
  assert.equal((await dispatch({ name: 'tick', args: {} })).durationMs, 8)
  assert.equal((await dispatch({ name: 'back', args: {} })).durationMs, 0)
})

test('a call whose handler does not log builds no call logger at info; one that logs gets callId and tool bound', async () => {
  const registry = new ToolRegistry()
  const { logger, lines } = captureLogger('info')
  let children = 0
  // Counts the child loggers built from the base: a pino child per call costs tens of µs (bench/README.md).
  const counting = Object.create(logger, { child: { value: (bindings: object) => { children++; return logger.child(bindings) } } }) as typeof logger
  const dispatcher = new Dispatcher({ registry, availability: new AvailabilityChecker(), logger: counting })
  registry.register({ name: 'quiet', toolset: 'testing', schema: { parameters: { type: 'object' } }, handler: (_args, ctx) => toolResult({ signal: ctx.signal.aborted }) })
  registry.register({ name: 'chatty', toolset: 'testing', schema: { parameters: { type: 'object' } }, handler: (_args, ctx) => { ctx.logger.info('working'); return toolResult({}) } })
  assert.equal((await dispatcher.dispatch({ name: 'quiet', args: {} })).outcome.status, 'ok')
  assert.equal(children, 0)
  await dispatcher.dispatch({ name: 'chatty', args: {}, callId: 'call_chatty' })
  assert.equal(children, 1)
  const line = lines().find((one) => one.msg === 'working')
  assert.deepEqual([line?.callId, line?.tool], ['call_chatty', 'chatty'])
})
