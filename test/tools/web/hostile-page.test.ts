// A hostile page must not freeze the gateway: web_extract converts HTML in a worker thread, so
// /healthz and other callers keep their answers while it runs, and the call's deadline stops the
// conversion (the worker is terminated, nothing keeps burning CPU). Real HTTP on 127.0.0.1 both ways.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { drainAndClose } from '../../../src/entry/shutdown.ts'
import { buildTestApp } from '../../helpers/app.ts'

// 200 000 nested <b> (600 KB): parsing alone grows with the square of the depth (330 000 took 34 s).
// On the main thread a deeply nested page blocked the event loop for 43 s (20 000 <div><span> pairs).
const NESTED = `<html><body>${'<b>'.repeat(200_000)}deep</body></html>`
const DEADLINE_MS = 1_500
// The issue asks for 50 ms on an idle machine. Test machines are shared: at a load average of 6 on
// 2 cores the slowest of these polls took 90 ms with no conversion at all and 70 to 250 ms with one,
// at a load of 10 up to 400 ms (the call's own deadline timer fired as late). Before the fix it was
// the whole conversion: 32 s. The bound only has to tell the two apart, without flaking under load.
const HEALTHZ_BOUND_MS = 1_000

async function pageServer (t: { after: (fn: () => Promise<void>) => void }, html: string): Promise<string> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const POLL_EVERY_MS = 20

/**
 * Asks /healthz every POLL_EVERY_MS until `done` settles; the slowest answer in ms, counted from
 * when it was due, so that a stalled event loop shows even when it stalls between two polls.
 */
async function slowestHealthz (base: string, done: Promise<unknown>): Promise<{ slowest: number, polls: number }> {
  const call = { finished: false }
  done.finally(() => { call.finished = true }).catch(() => {})
  let slowest = 0
  let polls = 0
  let previous = performance.now()
  while (!call.finished) {
    await sleep(POLL_EVERY_MS)
    const res = await fetch(`${base}/healthz`)
    await res.arrayBuffer()
    assert.equal(res.status, 200)
    const answered = performance.now()
    slowest = Math.max(slowest, answered - previous - POLL_EVERY_MS)
    previous = answered
    polls += 1
  }
  return { slowest, polls }
}

/** CPU time (ms, all threads of this process) spent over `ms` of wall time. */
async function cpuOver (ms: number): Promise<number> {
  const before = process.cpuUsage()
  await sleep(ms)
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000
}

test('while a deeply nested page converts, /healthz answers at once and the call deadline stops the conversion', async (t) => {
  const pages = await pageServer(t, NESTED)
  const { app } = await buildTestApp(t, { WEB_ALLOW_HOSTS: '127.0.0.1' }, { builtins: true })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const started = performance.now()
  const call = fetch(`${base}/dispatch/web_extract`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tool-timeout-ms': String(DEADLINE_MS) },
    body: JSON.stringify({ urls: [`${pages}/nested`] })
  }).then(async (res) => ({ status: res.status, body: await res.json() as { status: string, content: string }, ms: performance.now() - started }))
  const health = await slowestHealthz(base, call)
  const answer = await call
  t.diagnostic(`slowest /healthz during the conversion: ${health.slowest.toFixed(1)} ms over ${health.polls} polls; call answered after ${answer.ms.toFixed(0)} ms`)
  assert.equal(answer.status, 504, JSON.stringify(answer.body))
  assert.equal(answer.body.status, 'timeout')
  assert.match(answer.body.content, /timed out/)
  assert.ok(answer.ms < DEADLINE_MS + 3_000, `the deadline held: answered after ${answer.ms.toFixed(0)} ms`)
  assert.ok(health.polls >= 5, `/healthz was polled throughout (${health.polls} times)`)
  assert.ok(health.slowest < HEALTHZ_BOUND_MS, `slowest /healthz ${health.slowest.toFixed(1)} ms`)
  // Terminated, not left running: the process is idle again (a converting worker uses a whole core).
  await sleep(200)
  const cpu = await cpuOver(1_000)
  t.diagnostic(`CPU used in the second after the timeout: ${cpu.toFixed(0)} ms`)
  assert.ok(cpu < 400, `the conversion kept running after the deadline: ${cpu.toFixed(0)} ms of CPU in 1 s`)
})

test('shutting down during a conversion cancels the call and terminates its worker', async (t) => {
  const pages = await pageServer(t, NESTED)
  const { app } = await buildTestApp(t, { WEB_ALLOW_HOSTS: '127.0.0.1' }, { builtins: true })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const call = fetch(`${base}/dispatch/web_extract`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ urls: [`${pages}/nested`] })
  }).then(async (res) => ({ status: res.status, body: await res.json() as { status: string } }))
  await sleep(1_000)
  const started = performance.now()
  await drainAndClose(app, 200)
  t.diagnostic(`shut down in ${(performance.now() - started).toFixed(0)} ms`)
  const answer = await call
  assert.equal(answer.body.status, 'cancelled', JSON.stringify(answer.body))
  await sleep(200)
  const cpu = await cpuOver(1_000)
  assert.ok(cpu < 400, `the conversion kept running after shutdown: ${cpu.toFixed(0)} ms of CPU in 1 s`)
})
