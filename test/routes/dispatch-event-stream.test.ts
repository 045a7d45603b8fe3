// POST /dispatch/:name with Accept: text/event-stream: a comment at once, the tool's progress as
// `event: progress`, the envelope as the last event (`event: result`), comments while nothing else
// goes out; a bad header is still a plain 400; a client taking JSON too gets JSON; a client that goes
// away cancels the call, unless it carries an Idempotency-Key (then a retry gets the result).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import { toolResult } from '../../src/registry/tool-result.ts'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

const STREAM = { accept: 'text/event-stream' }

interface Event { event?: string, data?: unknown, comment?: string }

/** The events and comments of an event stream, in order. */
function eventsOf (text: string): Event[] {
  return text.split('\n\n').filter((block) => block.trim() !== '').map((block) => {
    const lines = block.split('\n')
    if (lines.every((line) => line.startsWith(':'))) return { comment: lines.join('\n').slice(1).trim() }
    const event: Event = {}
    for (const line of lines) {
      if (line.startsWith('event: ')) event.event = line.slice(7)
      if (line.startsWith('data: ')) event.data = JSON.parse(line.slice(6))
    }
    return event
  })
}

/** `steps` reports each step with a pause between; `hang` runs until its signal fires (recorded). */
async function appWithTools (t: Parameters<typeof buildTestApp>[0], env: Record<string, string> = {}) {
  const { app } = await buildTestApp(t, env)
  const aborted = Promise.withResolvers<unknown>()
  const started = Promise.withResolvers<void>()
  let hangRuns = 0
  app.gateway.registry.register(fixtureTool('steps', {
    handler: async (args, ctx) => {
      const steps = Number(args.text ?? 3)
      for (let i = 1; i <= steps; i++) {
        ctx.reportProgress?.({ progress: i, total: steps, message: `step ${i}` })
        // Past the progress coalescer's interval, so that each report goes out on its own.
        await sleep(120)
      }
      return toolResult({ steps })
    }
  }))
  app.gateway.registry.register(fixtureTool('hang', {
    handler: async (_args, ctx) => {
      hangRuns++
      started.resolve()
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      if (ctx.signal.aborted) aborted.resolve(ctx.signal.reason)
      return toolResult({ finished: true, run: hangRuns })
    }
  }))
  return { app, aborted: aborted.promise, started: started.promise, hangRuns: () => hangRuns }
}

test('progress events as the tool reports, the envelope last, as text/event-stream', async (t) => {
  const { app } = await appWithTools(t)
  const answer = await app.inject({ method: 'POST', url: '/dispatch/steps', payload: { text: '3' }, headers: { ...STREAM, 'x-tool-call-id': 'call_s' } })
  assert.equal(answer.statusCode, 200)
  assert.match(answer.headers['content-type'] as string, /^text\/event-stream/)
  assert.equal(answer.headers['cache-control'], 'no-cache, no-transform')
  const events = eventsOf(answer.body)
  assert.ok(events[0].comment !== undefined, 'a comment goes out at once')
  const named = events.filter((event) => event.event !== undefined)
  assert.deepEqual(named.map((event) => event.event), ['progress', 'progress', 'progress', 'result'])
  assert.deepEqual(named.slice(0, 3).map((event) => event.data), [1, 2, 3].map((i) => ({ progress: i, total: 3, message: `step ${i}` })))
  const envelope = named[3].data as { ok: boolean, callId: string, content: string }
  assert.equal(envelope.ok, true)
  assert.equal(envelope.callId, 'call_s')
  assert.deepEqual(JSON.parse(envelope.content), { steps: 3 })
})

test('comments keep a quiet stream alive every calls.keepAliveMs', async (t) => {
  const { app } = await appWithTools(t, { CALLS_KEEP_ALIVE_MS: '100' })
  const answer = await app.inject({ method: 'POST', url: '/dispatch/hang', payload: {}, headers: STREAM })
  const events = eventsOf(answer.body)
  const keepAlives = events.filter((event) => event.comment === 'keep-alive').length
  assert.ok(keepAlives >= 8 && keepAlives <= 16, `${keepAlives} keep-alive comments in 1.5 s`)
  assert.equal(events.at(-1)?.event, 'result')
})

test('a bad call header is a plain 400 before any stream; a client taking JSON too gets JSON; a refusal inside the stream is its result', async (t) => {
  const { app } = await appWithTools(t)
  const bad = await app.inject({ method: 'POST', url: '/dispatch/steps', payload: {}, headers: { ...STREAM, 'x-tool-timeout-ms': 'soon' } })
  assert.equal(bad.statusCode, 400)
  assert.match(bad.headers['content-type'] as string, /json/)
  const both = await app.inject({ method: 'POST', url: '/dispatch/steps', payload: { text: '1' }, headers: { accept: 'application/json, text/event-stream' } })
  assert.match(both.headers['content-type'] as string, /json/)
  assert.equal(both.json().ok, true)
  const unknown = await app.inject({ method: 'POST', url: '/dispatch/nope', payload: {}, headers: STREAM })
  const last = eventsOf(unknown.body).at(-1)
  assert.equal(last?.event, 'result')
  assert.equal((last?.data as { status: string }).status, 'not_found')
  // A key used for another request: the 422 comes as the result event.
  await app.inject({ method: 'POST', url: '/dispatch/steps', payload: { text: '1' }, headers: { 'idempotency-key': 'k' } })
  const reused = await app.inject({ method: 'POST', url: '/dispatch/steps', payload: { text: '2' }, headers: { ...STREAM, 'idempotency-key': 'k' } })
  const refusal = eventsOf(reused.body).at(-1)?.data as { status: string, error: { code: string } }
  assert.equal(refusal.error.code, 'GW_ERR_IDEMPOTENCY_KEY_REUSED')
})

/** Opens the stream over a real socket and goes away once the first bytes arrived. */
async function leaveEarly (app: FastifyInstance, headers: Record<string, string> = {}): Promise<void> {
  const address = app.server.address() as { port: number }
  await new Promise<void>((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: address.port, method: 'POST', path: '/dispatch/hang', headers: { ...STREAM, 'content-type': 'application/json', ...headers } }, (response) => {
      response.once('data', () => { request.destroy(); resolve() })
    })
    request.on('error', reject)
    request.end('{}')
  })
}

test('a client that goes away cancels its streamed call; with an Idempotency-Key it runs on and a retry gets its result', async (t) => {
  const { app, aborted, started } = await appWithTools(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  await leaveEarly(app)
  await started
  assert.ok(await Promise.race([aborted.then(() => true), sleep(3_000, false)]), 'the call\'s signal fired')

  const kept = await appWithTools(t)
  await kept.app.listen({ host: '127.0.0.1', port: 0 })
  await leaveEarly(kept.app, { 'idempotency-key': 'stay' })
  const retry = await kept.app.inject({ method: 'POST', url: '/dispatch/hang', payload: {}, headers: { ...STREAM, 'idempotency-key': 'stay' } })
  const result = eventsOf(retry.body).at(-1)
  assert.equal(result?.event, 'result')
  assert.deepEqual(JSON.parse((result?.data as { content: string }).content), { finished: true, run: 1 })
  assert.equal(kept.hangRuns(), 1)
})
