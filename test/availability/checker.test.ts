// Tests of AvailabilityChecker: verdicts, TTL cache, failure grace, in-flight sharing, deadline, env hints.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AvailabilityChecker } from '../../src/availability/checker.ts'
import { ToolRegistry } from '../../src/registry/registry.ts'
import type { CheckFn, RegisterOptions, ToolEntry } from '../../src/registry/types.ts'

function clock (start = 1_000) {
  let t = start
  return { now: () => t, advance: (ms: number) => { t += ms } }
}

function entry (registry: ToolRegistry, name: string, extra: Partial<RegisterOptions> = {}): ToolEntry {
  return registry.register({
    name,
    toolset: 'ts',
    schema: { description: name, parameters: { type: 'object', properties: {} } },
    handler: () => 'ok',
    ...extra
  })
}

/** A probe that answers from a script (true, false, or an Error to throw) and counts its calls. */
function scripted (...answers: Array<boolean | Error>) {
  let i = 0
  const probe = Object.assign(() => {
    probe.calls++
    const answer = answers[Math.min(i++, answers.length - 1)]
    if (answer instanceof Error) throw answer
    return answer
  }, { calls: 0 })
  return probe
}

test('true is available, false gets a default reason', async () => {
  const checker = new AvailabilityChecker()
  assert.deepEqual(await checker.check(() => true), { available: true })
  const verdict = await checker.check(() => false)
  assert.equal(verdict.available, false)
  assert.equal(verdict.reason, 'availability check returned false')
})

test('an object verdict keeps its reason; a falsy one without reason gets the default', async () => {
  const checker = new AvailabilityChecker()
  assert.deepEqual(await checker.check(async () => ({ available: false, reason: 'API key rejected' })),
    { available: false, reason: 'API key rejected' })
  assert.deepEqual(await checker.check(() => ({ available: false })),
    { available: false, reason: 'availability check returned false' })
  assert.deepEqual(await checker.check(() => ({ available: true })), { available: true })
})

test('a throwing probe (sync or async) is unavailable with the message, capped, no stack', async () => {
  const checker = new AvailabilityChecker()
  const sync = await checker.check(() => { throw new Error('docker not running') })
  assert.deepEqual(sync, { available: false, reason: 'availability check threw: docker not running' })

  const async = await checker.check(async () => { throw new TypeError('x'.repeat(5_000)) })
  assert.equal(async.available, false)
  assert.match(async.reason!, /^availability check threw: x+/)
  assert.ok(async.reason!.length < 400, `reason length ${async.reason!.length}`)
  assert.doesNotMatch(async.reason!, /\n\s+at /)

  const odd = await checker.check(() => { throw 'plain string' }) // eslint-disable-line no-throw-literal
  assert.equal(odd.reason, 'availability check threw: plain string')
})

test('verdicts are cached for the TTL per probe, then the probe runs again', async () => {
  const time = clock()
  const checker = new AvailabilityChecker({ now: time.now, ttlMs: 30_000 })
  const probe = scripted(true)
  await checker.check(probe)
  time.advance(29_999)
  await checker.check(probe)
  assert.equal(probe.calls, 1)
  time.advance(1)
  await checker.check(probe)
  assert.equal(probe.calls, 2)
})

test('a failure cached like a success when there was no success within grace', async () => {
  const time = clock()
  const checker = new AvailabilityChecker({ now: time.now })
  const probe = scripted(false, true)
  assert.equal((await checker.check(probe)).available, false)
  time.advance(10_000)
  assert.equal((await checker.check(probe)).available, false, 'cached failure within ttl')
  assert.equal(probe.calls, 1)
})

test('failure grace: a failure within 60 s of a success is reported available and not cached', async () => {
  const time = clock()
  const checker = new AvailabilityChecker({ now: time.now })
  const probe = scripted(true, false, false, false)
  assert.deepEqual(await checker.check(probe), { available: true })

  time.advance(30_000) // ttl expired, 30 s after the success
  const flapped = await checker.check(probe)
  assert.equal(flapped.available, true)
  assert.match(flapped.reason!, /transient failure, within grace/)
  assert.equal(probe.calls, 2)

  time.advance(1) // not cached: the next look probes again
  assert.equal((await checker.check(probe)).available, true)
  assert.equal(probe.calls, 3)

  time.advance(30_000) // 60 001 ms after the last success: grace expired
  const down = await checker.check(probe)
  assert.deepEqual(down, { available: false, reason: 'availability check returned false' })
  assert.equal(probe.calls, 4)
  time.advance(29_999)
  assert.equal((await checker.check(probe)).available, false)
  assert.equal(probe.calls, 4, 'the failure after grace is cached for the ttl')
})

test('failure grace covers throws too, and a new success restarts the grace window', async () => {
  const time = clock()
  const checker = new AvailabilityChecker({ now: time.now, ttlMs: 10_000, graceMs: 60_000 })
  const probe = scripted(true, new Error('blip'), true, new Error('blip'))
  await checker.check(probe)
  time.advance(50_000)
  assert.equal((await checker.check(probe)).available, true, 'throw within grace')
  time.advance(5_000)
  assert.equal((await checker.check(probe)).available, true, 'second success at 55 s')
  time.advance(59_000) // 114 s after the first success, 59 s after the second
  const verdict = await checker.check(probe)
  assert.equal(verdict.available, true)
  assert.match(verdict.reason!, /blip/)
  assert.equal(probe.calls, 4)
})

test('concurrent callers share one in-flight probe', async () => {
  const checker = new AvailabilityChecker()
  let calls = 0
  let release!: (value: boolean) => void
  const probe: CheckFn = () => {
    calls++
    return new Promise<boolean>((resolve) => { release = resolve })
  }
  const pending = [checker.check(probe), checker.check(probe), checker.check(probe)]
  release(false)
  const verdicts = await Promise.all(pending)
  assert.equal(calls, 1)
  for (const verdict of verdicts) assert.equal(verdict.available, false)
})

test('a hanging probe resolves unavailable at the deadline, and its late answer is ignored', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const time = clock()
  const checker = new AvailabilityChecker({ now: time.now, probeTimeoutMs: 2_000 })
  let release!: (value: boolean) => void
  let calls = 0
  const hang: CheckFn = () => {
    calls++
    return new Promise<boolean>((resolve) => { release = resolve })
  }
  let settled = false
  const pending = checker.check(hang).then((verdict) => { settled = true; return verdict })

  t.mock.timers.tick(1_999)
  await Promise.resolve()
  await Promise.resolve()
  assert.equal(settled, false, 'not before the deadline')

  t.mock.timers.tick(1)
  assert.deepEqual(await pending, { available: false, reason: 'availability check timed out after 2000 ms' })

  release(true) // the hung probe finally answers: ignored, the timeout verdict stays cached
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal((await checker.check(hang)).available, false)
  assert.equal(calls, 1)
})

test('a timeout within grace of a success is transient', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const time = clock()
  const checker = new AvailabilityChecker({ now: time.now, probeTimeoutMs: 500 })
  let first = true
  const probe: CheckFn = () => {
    if (first) { first = false; return true }
    return new Promise<boolean>(() => {})
  }
  await checker.check(probe)
  time.advance(31_000)
  const pending = checker.check(probe)
  t.mock.timers.tick(500)
  const verdict = await pending
  assert.equal(verdict.available, true)
  assert.match(verdict.reason!, /transient failure, within grace: availability check timed out after 500 ms/)
})

/** The deadline timer is unref'd, so a test awaiting only it needs something else to hold the loop open. */
function holdEventLoop (t: { after: (fn: () => void) => void }): void {
  const keepAlive = setInterval(() => {}, 1_000)
  t.after(() => clearInterval(keepAlive))
}

test('a real short deadline stops a probe that never settles', async (t) => {
  holdEventLoop(t)
  const checker = new AvailabilityChecker({ probeTimeoutMs: 20 })
  const verdict = await checker.check(() => new Promise<boolean>(() => {}))
  assert.deepEqual(verdict, { available: false, reason: 'availability check timed out after 20 ms' })
})

test('tool(): no checkFn is available; a probe answers for the tool', async () => {
  const registry = new ToolRegistry()
  const checker = new AvailabilityChecker()
  assert.deepEqual(await checker.tool(entry(registry, 'plain')), { available: true })
  const down = entry(registry, 'down', { checkFn: () => ({ available: false, reason: 'service down' }) })
  assert.deepEqual(await checker.tool(down), { available: false, reason: 'service down' })
})

test('tool(): the reason is the probe\'s own; requiresEnv is metadata and not consulted', async () => {
  const registry = new ToolRegistry()
  const checker = new AvailabilityChecker()
  const tool = entry(registry, 'needs_env', { checkFn: () => ({ available: false, reason: 'set SEARXNG_URL or BRAVE_API_KEY' }), requiresEnv: ['GW_TEST_SURELY_UNSET_1', 'GW_TEST_SURELY_UNSET_2'] })
  assert.deepEqual(await checker.tool(tool), { available: false, reason: 'set SEARXNG_URL or BRAVE_API_KEY' })
  const noProbe = entry(registry, 'no_probe', { requiresEnv: ['GW_TEST_SURELY_UNSET_1'] })
  assert.deepEqual(await checker.tool(noProbe), { available: true })
})

test('tools(): a probe shared by two tools runs once, and every tool gets a verdict', async () => {
  const registry = new ToolRegistry()
  const checker = new AvailabilityChecker()
  const shared = scripted(true)
  const other = scripted(false)
  const entries = [
    entry(registry, 'a', { checkFn: shared }),
    entry(registry, 'b', { checkFn: shared }),
    entry(registry, 'c', { checkFn: other }),
    entry(registry, 'd')
  ]
  const verdicts = await checker.tools(entries)
  assert.equal(shared.calls, 1)
  assert.equal(other.calls, 1)
  assert.deepEqual([...verdicts.keys()], ['a', 'b', 'c', 'd'])
  assert.equal(verdicts.get('a')!.available, true)
  assert.equal(verdicts.get('b')!.available, true)
  assert.equal(verdicts.get('c')!.available, false)
  assert.equal(verdicts.get('d')!.available, true)
})

test('tools(): a shared probe that is uncached (failing within grace) still runs once per pass', async () => {
  const time = clock()
  const registry = new ToolRegistry()
  const checker = new AvailabilityChecker({ now: time.now })
  const shared = scripted(true, false)
  const entries = [entry(registry, 'a', { checkFn: shared }), entry(registry, 'b', { checkFn: shared })]
  await checker.tools(entries)
  time.advance(40_000)
  const verdicts = await checker.tools(entries)
  assert.equal(shared.calls, 2)
  assert.equal(verdicts.get('a')!.available, true)
})

test('clear() forgets cached verdicts', async () => {
  const checker = new AvailabilityChecker({ now: clock().now })
  const probe = scripted(false, true)
  assert.equal((await checker.check(probe)).available, false)
  checker.clear()
  assert.equal((await checker.check(probe)).available, true)
  assert.equal(probe.calls, 2)
})

test('a returned verdict cannot corrupt the cache', async () => {
  const checker = new AvailabilityChecker({ now: clock().now })
  const probe = scripted(false)
  const first = await checker.check(probe)
  assert.throws(() => { (first as { available: boolean }).available = true })
  assert.equal((await checker.check(probe)).available, false)
})

test('throws and timeouts are logged as warnings', async (t) => {
  holdEventLoop(t)
  const warnings: unknown[] = []
  const logger = { warn: (...args: unknown[]) => { warnings.push(args) }, debug: () => {} }
  const checker = new AvailabilityChecker({ logger, probeTimeoutMs: 10 })
  await checker.check(() => { throw new Error('boom') })
  await checker.check(() => new Promise<boolean>(() => {}))
  assert.equal(warnings.length, 2)
})

test('the deadline timer is cleared once the probe answers', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const warnings: unknown[] = []
  const logger = { warn: (...args: unknown[]) => { warnings.push(args) }, debug: () => {} }
  const checker = new AvailabilityChecker({ logger, probeTimeoutMs: 1_000 })
  assert.equal((await checker.check(async () => true)).available, true)
  t.mock.timers.tick(5_000) // a leftover deadline would fire here and log a bogus timeout
  assert.deepEqual(warnings, [])
})

test('a probe receives the configuration of the checker that runs it, as it stands when the probe runs', async () => {
  const seen: unknown[] = []
  const probe = (ctx: { config: unknown }) => { seen.push(ctx.config); return true }
  let config = { terminal: true }
  const checker = new AvailabilityChecker({ config: () => config })
  await checker.check(probe)
  // A reload swaps the configuration whole; the next probe run reads the new one.
  config = { terminal: false }
  checker.clear()
  await checker.check(probe)
  await new AvailabilityChecker().check(probe)
  assert.deepEqual(seen, [{ terminal: true }, { terminal: false }, undefined])
})
