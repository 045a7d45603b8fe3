// Real sockets: a client that disconnects aborts its call; a drain lets in-flight calls finish,
// refuses new ones with 503 + Retry-After, and loses none.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, request as httpRequest } from 'node:http'
import { drainAndClose } from '../../src/entry/shutdown.ts'
import { toolResult } from '../../src/registry/tool-result.ts'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

function post (port: number, path: string, body: unknown): Promise<{ status: number, headers: Record<string, unknown>, json: Record<string, unknown> }> {
  return fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body)
  }).then(async (res) => ({ status: res.status, headers: Object.fromEntries(res.headers), json: await res.json() as Record<string, unknown> }))
}

test('a client that disconnects mid-dispatch aborts the handler signal', async (t) => {
  const { app } = await buildTestApp(t)
  let started!: () => void
  const running = new Promise<void>((resolve) => { started = resolve })
  let aborted!: (reason: unknown) => void
  const abortSeen = new Promise<unknown>((resolve) => { aborted = resolve })
  app.gateway.registry.register(fixtureTool('hang', {
    handler: (_args, ctx) => new Promise<string>((resolve) => {
      ctx.signal.addEventListener('abort', () => { aborted(ctx.signal.reason); resolve('{}') }, { once: true })
      started()
    })
  }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as { port: number }).port
  const req = httpRequest({ port, host: '127.0.0.1', method: 'POST', path: '/dispatch/hang', headers: { 'content-type': 'application/json' } })
  req.on('error', () => {})
  req.end('{}')
  await running
  req.destroy()
  const reason = await Promise.race([abortSeen, new Promise((resolve) => setTimeout(() => resolve('not aborted'), 5000))])
  assert.notEqual(reason, 'not aborted')
  assert.match(String((reason as Error).message), /client closed the connection/)
  while (app.lifecycle.inFlight > 0) await new Promise((resolve) => setImmediate(resolve))
  const metrics = (await app.inject('/metrics')).body
  assert.match(metrics, /gateway_tool_calls_total\{tool="hang",status="cancelled"\} 1/)
})

test('on a keep-alive connection, calls that answered are done and only the one running when it closes is cancelled', async (t) => {
  const { app } = await buildTestApp(t)
  let started!: () => void
  const running = new Promise<void>((resolve) => { started = resolve })
  const reasons: unknown[] = []
  let quickCalls = 0
  app.gateway.registry.register(fixtureTool('quick', {
    handler: (_args, ctx) => {
      quickCalls++
      ctx.signal.addEventListener('abort', () => reasons.push(ctx.signal.reason), { once: true })
      return '{}'
    }
  }))
  app.gateway.registry.register(fixtureTool('hang', {
    handler: (_args, ctx) => new Promise<string>((resolve) => {
      ctx.signal.addEventListener('abort', () => { reasons.push(ctx.signal.reason); resolve('{}') }, { once: true })
      started()
    })
  }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as { port: number }).port
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  t.after(() => agent.destroy())
  const sockets = new Set<unknown>()
  const send = (path: string): Promise<number> => new Promise((resolve, reject) => {
    const req = httpRequest({ port, host: '127.0.0.1', method: 'POST', path, agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('socket', (socket) => sockets.add(socket))
    req.on('error', reject)
    req.end('{}')
  })
  for (let i = 0; i < 3; i++) assert.equal(await send('/dispatch/quick'), 200)
  const hanging = httpRequest({ port, host: '127.0.0.1', method: 'POST', path: '/dispatch/hang', agent, headers: { 'content-type': 'application/json' } })
  hanging.on('socket', (socket) => sockets.add(socket))
  hanging.on('error', () => {})
  hanging.end('{}')
  await running
  assert.equal(sockets.size, 1, 'all four requests went over one connection')
  hanging.destroy()
  while (app.lifecycle.inFlight > 0) await new Promise((resolve) => setImmediate(resolve))
  assert.equal(quickCalls, 3)
  assert.equal(reasons.length, 1, 'only the running call was cancelled')
  assert.match(String((reasons[0] as Error).message), /client closed the connection/)
})

test('draining: readiness 503, new calls 503 with Retry-After, in-flight calls all finish', async (t) => {
  const { app } = await buildTestApp(t)
  let release!: () => void
  const gate = new Promise<void>((resolve) => { release = resolve })
  let entered = 0
  app.gateway.registry.register(fixtureTool('work', {
    schema: { parameters: { type: 'object', properties: { n: { type: 'integer' } } } },
    handler: async (args) => {
      entered++
      await gate
      return toolResult({ n: args.n })
    }
  }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as { port: number }).port
  const inFlight = Array.from({ length: 8 }, (_, n) => post(port, '/dispatch/work', { n }))
  const allEntered = (): boolean => entered === 8
  while (!allEntered()) await new Promise((resolve) => setImmediate(resolve))

  const closing = drainAndClose(app, 10_000)
  const ready = await fetch(`http://127.0.0.1:${port}/readyz`)
  assert.equal(ready.status, 503, await ready.clone().text())
  const refused = await post(port, '/dispatch/work', { n: 99 })
  assert.equal(refused.status, 503)
  assert.equal(refused.headers['retry-after'], '5')
  assert.equal((refused.json.error as { code: string }).code, 'GW_ERR_OVERLOADED')
  assert.equal(refused.json.ok, false)

  release()
  const answers = await Promise.all(inFlight)
  assert.deepEqual(answers.map((a) => a.status), Array(8).fill(200))
  assert.deepEqual(answers.map((a) => JSON.parse(a.json.content as string).n), [0, 1, 2, 3, 4, 5, 6, 7])
  await closing
  assert.equal(app.lifecycle.inFlight, 0)
})

test('calls still running when the grace period ends are cancelled with an answer, not dropped', async (t) => {
  const { app } = await buildTestApp(t)
  app.gateway.registry.register(fixtureTool('stuck', { handler: () => new Promise<string>(() => {}) }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as { port: number }).port
  const pending = post(port, '/dispatch/stuck', {})
  while (app.lifecycle.inFlight < 1) await new Promise((resolve) => setImmediate(resolve))
  await drainAndClose(app, 100)
  const answer = await pending
  assert.equal(answer.status, 499)
  assert.equal(answer.json.status, 'cancelled')
})
