// A two-minute call behind a proxy that closes connections idle for 60 s (as cloud load balancers
// do), against the real gateway as a process: the plain synchronous call is cut by the proxy; the
// same call made with `Prefer: respond-async` and followed with GET /calls/:id?wait=30 through the
// proxy ends with its envelope; streamed as server-sent events, its keep-alive comments hold the
// connection and the envelope arrives as the last event. The three run side by side.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startIdleProxy } from '../helpers/idle-proxy.ts'
import { listeningPort, startServer } from '../helpers/server-process.ts'

const IDLE_MS = 60_000
const CALL = { command: 'sleep 120; echo done', timeout: 150 }
const JSON_BODY = { 'content-type': 'application/json' }
/** Past the call's own two minutes: a request that hangs fails the test instead of the file. */
const REQUEST_LIMIT_MS = 180_000

test('a 2-minute call through a 60 s-idle proxy: cut when synchronous, complete when asynchronous or streamed', async (t) => {
  const workspace = await mkdtemp(join(tmpdir(), 'gw-idle-proxy-'))
  t.after(() => rm(workspace, { recursive: true, force: true }))
  const server = startServer(t, {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: workspace,
    WORKSPACE_ROOT: workspace,
    PORT: '0',
    GATEWAY_ENABLE_TERMINAL: 'true',
    TERMINAL_SANDBOX: 'none',
    // info: the line saying where it listens.
    LOG_LEVEL: 'info'
  })
  const port = await listeningPort(server)
  const proxy = await startIdleProxy(t, port, IDLE_MS)
  const post = (headers: Record<string, string>) => fetch(`${proxy.url}/dispatch/terminal`, { method: 'POST', headers: { ...JSON_BODY, ...headers }, body: JSON.stringify(CALL), signal: AbortSignal.timeout(REQUEST_LIMIT_MS) })

  const plain = (async () => {
    const began = performance.now()
    try {
      const answer = await post({})
      return { answered: answer.status, text: await answer.text(), ms: performance.now() - began }
    } catch (err) {
      return { failed: String((err as Error).cause ?? err), ms: performance.now() - began }
    }
  })()

  const polled = (async () => {
    const started = await post({ prefer: 'respond-async' })
    assert.equal(started.status, 202)
    const location = started.headers.get('location') as string
    let polls = 0
    for (;;) {
      const answer = await fetch(`${proxy.url}${location}?wait=30`, { signal: AbortSignal.timeout(REQUEST_LIMIT_MS) })
      polls++
      if (answer.status === 200) return { envelope: await answer.json() as { ok: boolean, content: string }, polls }
      assert.equal(answer.status, 202)
      await answer.body?.cancel()
    }
  })()

  const streamed = (async () => {
    const answer = await post({ accept: 'text/event-stream' })
    assert.match(answer.headers.get('content-type') ?? '', /^text\/event-stream/)
    return await answer.text()
  })()

  const [cut, { envelope, polls }, stream] = await Promise.all([plain, polled, streamed])
  assert.equal('failed' in cut, true, `the proxy cut the synchronous call: ${JSON.stringify(cut)}`)
  assert.ok(cut.ms >= IDLE_MS - 1_000 && cut.ms < 110_000, `cut after ${cut.ms} ms`)

  assert.equal(envelope.ok, true, JSON.stringify(envelope))
  assert.equal(JSON.parse(envelope.content).output, 'done\n')
  assert.ok(polls >= 4, `${polls} polls of at most 30 s each`)

  const events = stream.split('\n\n').filter((block) => block.trim() !== '')
  const keepAlives = events.filter((block) => block === ': keep-alive').length
  assert.ok(keepAlives >= 6, `${keepAlives} keep-alive comments over two minutes`)
  const last = events.at(-1) ?? ''
  assert.match(last, /^event: result\ndata: /)
  const result = JSON.parse(last.split('\ndata: ')[1])
  assert.equal(result.ok, true)
  assert.equal(JSON.parse(result.content).output, 'done\n')
  assert.ok(proxy.cut() >= 1, 'the proxy did cut an idle connection')
})
