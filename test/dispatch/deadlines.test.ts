import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import test from 'node:test'
import { DeadlineTimer } from '../../src/dispatch/deadlines.ts'

const DEADLINES_MODULE = fileURLToPath(new URL('../../src/dispatch/deadlines.ts', import.meta.url))

test('deadlines: a deadline expires when its time comes, not a tick before', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] })
  const timer = new DeadlineTimer(() => Date.now())
  let expired = 0
  timer.schedule(100, () => { expired++ })
  t.mock.timers.tick(99)
  assert.equal(expired, 0)
  t.mock.timers.tick(1)
  assert.equal(expired, 1)
  assert.equal(timer.pending, 0)
  t.mock.timers.tick(10_000)
  assert.equal(expired, 1, 'expires once')
})

test('deadlines: a cancelled deadline never expires; cancelling twice is harmless', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] })
  const timer = new DeadlineTimer(() => Date.now())
  let expired = 0
  const first = timer.schedule(100, () => { expired++ })
  timer.schedule(100, () => { expired += 10 })
  first.cancel()
  first.cancel()
  assert.equal(timer.pending, 1)
  t.mock.timers.tick(100)
  assert.equal(expired, 10)
})

test('deadlines: an earlier deadline of another duration expires first, and the later one still does', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] })
  const timer = new DeadlineTimer(() => Date.now())
  const order: string[] = []
  timer.schedule(500, () => order.push('500'))
  timer.schedule(100, () => order.push('100'))
  timer.schedule(300, () => order.push('300'))
  t.mock.timers.tick(100)
  assert.deepEqual(order, ['100'])
  t.mock.timers.tick(200)
  assert.deepEqual(order, ['100', '300'])
  t.mock.timers.tick(200)
  assert.deepEqual(order, ['100', '300', '500'])
  assert.equal(timer.pending, 0)
})

test('deadlines: deadlines that ended before the armed one leave the next in line to expire on time', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] })
  const timer = new DeadlineTimer(() => Date.now())
  const order: number[] = []
  const first = timer.schedule(100, () => order.push(1))
  t.mock.timers.tick(50)
  timer.schedule(100, () => order.push(2)) // due at 150
  first.cancel()
  t.mock.timers.tick(50) // the timer armed for 100 fires, finds nothing due, re-arms for 150
  assert.deepEqual(order, [])
  t.mock.timers.tick(49)
  assert.deepEqual(order, [])
  t.mock.timers.tick(1)
  assert.deepEqual(order, [2])
})

test('deadlines: calls of one duration share one timer instead of one each', (t) => {
  let armed = 0
  const realSetTimeout = globalThis.setTimeout
  t.mock.method(globalThis, 'setTimeout', ((...args: Parameters<typeof setTimeout>) => {
    armed++
    return realSetTimeout(...args)
  }) as typeof setTimeout)
  const timer = new DeadlineTimer()
  for (let i = 0; i < 1000; i++) timer.schedule(60_000, () => assert.fail('must not expire')).cancel()
  const kept = timer.schedule(60_000, () => assert.fail('must not expire'))
  assert.equal(armed, 1)
  kept.cancel()
  assert.equal(timer.pending, 0)
})

function runScript (source: string): { status: number | null, ms: number, stdout: string } {
  const started = Date.now()
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', source], { encoding: 'utf8', timeout: 30_000 })
  return { status: child.status, ms: Date.now() - started, stdout: child.stdout }
}

test('deadlines: a pending deadline keeps the process alive until it expires; an ended one does not hold it', () => {
  const pending = runScript(`
    import { DeadlineTimer } from ${JSON.stringify(DEADLINES_MODULE)}
    const started = performance.now()
    new DeadlineTimer().schedule(300, () => console.log('expired after', Math.round(performance.now() - started)))
  `)
  assert.equal(pending.status, 0)
  const after = Number(/expired after (\d+)/.exec(pending.stdout)?.[1])
  assert.ok(after >= 299, `expired after ${after} ms`)

  const ended = runScript(`
    import { DeadlineTimer } from ${JSON.stringify(DEADLINES_MODULE)}
    new DeadlineTimer().schedule(20_000, () => console.log('must not expire')).cancel()
    console.log('done')
  `)
  assert.equal(ended.status, 0)
  assert.equal(ended.stdout.trim(), 'done')
  assert.ok(ended.ms < 15_000, `exited after ${ended.ms} ms, the cancelled deadline held the process`)
})

test('deadlines: a callback that throws does not keep the others from expiring, and its error still surfaces', () => {
  const run = runScript(`
    import { DeadlineTimer } from ${JSON.stringify(DEADLINES_MODULE)}
    process.on('uncaughtException', (err) => console.log('uncaught', err.message))
    const timer = new DeadlineTimer()
    timer.schedule(50, () => { throw new Error('boom') })
    timer.schedule(50, () => console.log('second expired'))
  `)
  assert.equal(run.status, 0)
  assert.deepEqual(run.stdout.trim().split('\n').sort(), ['second expired', 'uncaught boom'])
})
