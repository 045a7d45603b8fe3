// GET /metrics/history and its ring of slots (src/http/call-history.ts): calls counted in the slot
// they ended in, errors, the median and 99th percentile, slots that age out, bounded tools and
// samples, and a key limited to toolsets seeing only its own tools' series and their total.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { CallHistory, OTHER_TOOLS, weightedQuantile, weightedQuantiles } from '../../src/http/call-history.ts'
import { toolError } from '../../src/registry/index.ts'
import { buildTestApp } from '../helpers/app.ts'
import { bearer, configFolder, keysYaml } from '../helpers/keys.ts'
import { fixtureTool } from '../helpers/tools.ts'

function clock (start = 1_000_000_000_000): { now: () => number, advance: (ms: number) => void } {
  let at = start
  return { now: () => at, advance: (ms) => { at += ms } }
}

const everything = (): boolean => true

test('calls land in the slot they ended in, oldest first, with errors, p50 and p99', () => {
  const time = clock()
  const history = new CallHistory({ now: time.now })
  for (let ms = 1; ms <= 100; ms++) history.record('read_file', ms % 10 !== 0, ms)
  time.advance(5_000)
  history.record('read_file', true, 7)
  history.record('web_fetch', false, 300)
  const answer = history.answer(everything)
  assert.equal(answer.stepSeconds, 5)
  assert.equal(answer.slots, 120)
  assert.equal(answer.end, (Math.floor(time.now() / 5_000) + 1) * 5_000)
  const read = answer.tools.read_file
  for (const series of [read.calls, read.errors, read.p50Ms, read.p99Ms]) assert.equal(series.length, 120)
  assert.deepEqual(read.calls.slice(-3), [0, 100, 1])
  assert.deepEqual(read.errors.slice(-3), [0, 10, 0])
  assert.deepEqual(read.p50Ms.slice(-3), [null, 50, 7])
  assert.deepEqual(read.p99Ms.slice(-3), [null, 99, 7])
  assert.deepEqual(answer.tools.web_fetch.calls.slice(-2), [0, 1])
  assert.deepEqual(answer.tools.web_fetch.errors.slice(-2), [0, 1])
  assert.deepEqual(answer.total.calls.slice(-2), [100, 2])
  assert.deepEqual(answer.total.errors.slice(-2), [10, 1])
  assert.deepEqual(answer.total.p99Ms.slice(-2), [99, 300])
  // Only one tool when asked.
  assert.deepEqual(Object.keys(history.answer(everything, 'web_fetch').tools), ['web_fetch'])
  assert.deepEqual(history.answer(everything, 'web_fetch').total.calls.slice(-2), [0, 1])
})

test('slots age out of the window: after ten quiet minutes a tool is gone, and its ring position is reused', () => {
  const time = clock()
  const history = new CallHistory({ now: time.now })
  history.record('a', true, 1)
  time.advance(119 * 5_000)
  assert.equal(history.answer(everything).tools.a.calls[0], 1)
  time.advance(5_000)
  assert.deepEqual(history.answer(everything).tools, {})
  assert.ok(history.answer(everything).total.calls.every((calls) => calls === 0))
  // The same ring position, a new slot: the old count does not come back.
  history.record('a', true, 2)
  const calls = history.answer(everything).tools.a.calls
  assert.equal(calls.reduce((sum, n) => sum + n, 0), 1)
  assert.equal(calls[119], 1)
})

test('memory is bounded: a reservoir of 256 durations per tool, at most maxTools tools, the rest counted together', () => {
  const time = clock()
  let seed = 1
  const history = new CallHistory({ now: time.now, maxTools: 3, random: () => { seed = (seed * 16807) % 2147483647; return seed / 2147483647 } })
  for (let i = 0; i < 10_000; i++) history.record('busy', true, i % 1000)
  const busy = history.answer(everything).tools.busy
  assert.equal(busy.calls[119], 10_000)
  // A uniform sample of 0..999: its median is near 500.
  assert.ok(Math.abs((busy.p50Ms[119] ?? 0) - 500) < 120, `p50 ${busy.p50Ms[119]}`)
  for (const tool of ['b', 'c', 'd', 'e']) history.record(tool, true, 1)
  assert.equal(history.size, 4)
  assert.deepEqual(Object.keys(history.answer(everything).tools).sort(), [OTHER_TOOLS, 'b', 'busy', 'c'].sort())
  assert.equal(history.answer(everything).tools[OTHER_TOOLS].calls[119], 2)
  assert.equal(history.answer(everything).total.calls[119], 10_004)
  // Tools quiet for the whole window make room.
  time.advance(120 * 5_000)
  history.record('f', true, 1)
  assert.deepEqual(Object.keys(history.answer(everything).tools), ['f'])
})

test('the total of several tools weighs each sample by the calls it stands for', () => {
  assert.equal(weightedQuantile([], 0.5), null)
  assert.equal(weightedQuantile([[1, 1], [2, 1], [3, 1]], 0.5), 2)
  // 1000 calls near 1 ms (one sample standing for them), 10 at 100 ms: the median is the busy tool's.
  assert.equal(weightedQuantile([[1, 1000], [100, 10]], 0.5), 1)
  assert.equal(weightedQuantile([[1, 1000], [100, 10]], 0.999), 100)
  // Many points (a total over many busy tools) go through a log histogram: within 2 %.
  const many: Array<[number, number]> = Array.from({ length: 10_000 }, (_, i) => [i + 1, 1])
  const [p50, p99] = weightedQuantiles(many, [0.5, 0.99])
  assert.ok(Math.abs((p50 ?? 0) / 5_000 - 1) < 0.021, `p50 ${p50}`)
  assert.ok(Math.abs((p99 ?? 0) / 9_900 - 1) < 0.021, `p99 ${p99}`)
  assert.deepEqual(weightedQuantiles(Array.from({ length: 300 }, () => [0, 1] as [number, number]), [0.5]), [0])
})

test('GET /metrics/history counts the calls made; a key limited to toolsets sees only its tools and their total', async (t) => {
  const { file } = await configFolder(t, keysYaml([
    { name: 'operator', key: 'operator-key-9a8b7c6d' },
    { name: 'limited', key: 'limited-key-1f2e3d4c', toolsets: ['x'] }
  ]))
  const { app } = await buildTestApp(t, { GATEWAY_CONFIG: file })
  app.gateway.registry.register(fixtureTool('alpha', { toolset: 'x' }))
  app.gateway.registry.register(fixtureTool('beta_payroll', { toolset: 'y', handler: async () => toolError('no') }))
  const operator = bearer('operator-key-9a8b7c6d')
  for (let i = 0; i < 3; i++) await app.inject({ method: 'POST', url: '/dispatch/alpha', headers: operator, payload: {} })
  await app.inject({ method: 'POST', url: '/dispatch/beta_payroll', headers: operator, payload: {} })
  await app.inject({ method: 'POST', url: '/dispatch/nonexistent', headers: operator, payload: {} })

  assert.equal((await app.inject({ url: '/metrics/history' })).statusCode, 401)
  const all = await app.inject({ url: '/metrics/history', headers: operator })
  assert.equal(all.statusCode, 200)
  const body = all.json()
  assert.deepEqual(Object.keys(body.tools).sort(), ['(unknown)', 'alpha', 'beta_payroll'])
  const sum = (series: number[]): number => series.reduce((a, b) => a + b, 0)
  assert.equal(sum(body.tools.alpha.calls), 3)
  assert.equal(sum(body.tools.alpha.errors), 0)
  assert.equal(sum(body.tools.beta_payroll.errors), 1)
  assert.equal(sum(body.total.calls), 5)
  // The calls ended in the current (last) slot, or the one before if a slot boundary fell between.
  assert.equal(body.tools.alpha.calls[119] + body.tools.alpha.calls[118], 3)
  assert.ok(body.end > Date.now() - 5_000 && body.end <= Date.now() + 5_000)
  const last = body.tools.alpha.calls[119] > 0 ? 119 : 118
  assert.equal(typeof body.tools.alpha.p50Ms[last], 'number')
  assert.equal(typeof body.tools.alpha.p99Ms[last], 'number')

  const limited = await app.inject({ url: '/metrics/history', headers: bearer('limited-key-1f2e3d4c') })
  assert.equal(limited.statusCode, 200)
  assert.deepEqual(Object.keys(limited.json().tools), ['alpha'])
  assert.equal(sum(limited.json().total.calls), 3)
  assert.doesNotMatch(limited.body, /beta_payroll|unknown/)
  const narrowed = await app.inject({ url: '/metrics/history?tool=beta_payroll', headers: bearer('limited-key-1f2e3d4c') })
  assert.deepEqual(narrowed.json().tools, {})
  assert.equal(sum(narrowed.json().total.calls), 0)
  const one = await app.inject({ url: '/metrics/history?tool=beta_payroll', headers: operator })
  assert.deepEqual(Object.keys(one.json().tools), ['beta_payroll'])
  assert.equal((await app.inject({ url: '/metrics/history?tools=x', headers: operator })).statusCode, 400)
})

test('an open gateway answers /metrics/history to anyone', async (t) => {
  const { app } = await buildTestApp(t)
  const answer = await app.inject({ url: '/metrics/history' })
  assert.equal(answer.statusCode, 200)
  assert.deepEqual(answer.json().tools, {})
  assert.equal(answer.json().total.calls.length, 120)
})
