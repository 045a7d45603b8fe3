// The edge against clients that hold connections: requests that arrive too slowly (or not at all)
// are closed after REQUEST_TIMEOUT_MS while /healthz keeps answering, connections beyond
// MAX_CONNECTIONS are closed on arrival, a client's X-Request-Id is adopted only when short and
// plain, and answers given while draining say Connection: close so keep-alive clients stop reusing.
// Real sockets on loopback: the transport is what is under test.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { request as httpRequest, Agent, type IncomingMessage } from 'node:http'
import { connect, type Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { drainAndClose } from '../../src/entry/shutdown.ts'
import { withTimeout } from '../../src/shared/timers.ts'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

async function listen (app: FastifyInstance): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  return (app.server.address() as { port: number }).port
}

/** A raw connection that sends `text` and then nothing more; resolves once connected. */
function stalled (port: number, text: string): Promise<{ socket: Socket, closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      if (text !== '') socket.write(text)
      resolve({ socket, closed })
    })
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
    // Read whatever comes (a 408): an unread answer would hold back the 'close' event.
    socket.resume()
    socket.on('error', () => {}) // a reset by the server is one way of being closed
    socket.once('error', reject)
  })
}

function get (port: number, path: string, agent?: Agent): Promise<IncomingMessage & { body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => { body += chunk })
      res.on('end', () => resolve(Object.assign(res, { body })))
    })
    req.on('error', reject)
    req.end()
  })
}

test('slow or silent requests are closed after the request timeout, and /healthz answers throughout', async (t) => {
  const { app } = await buildTestApp(t, { REQUEST_TIMEOUT_MS: '500' })
  const port = await listen(app)
  const body = 'POST /dispatch/anything HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"text": "'
  const sockets = await Promise.all(Array.from({ length: 50 }, (_, i) =>
    stalled(port, i % 3 === 0 ? body : i % 3 === 1 ? 'GET /healthz HTTP/1.1\r\nHost: x\r\n' : '')))
  // Destroyed here rather than in t.after: app.close() there would wait for them.
  try {
    const during = await get(port, '/healthz')
    assert.equal(during.statusCode, 200)
    // Generous bound: the server checks every second at most, on a machine that may be busy.
    let closedCount = 0
    for (const s of sockets) s.closed.then(() => { closedCount++ }, () => {})
    await withTimeout(Promise.all(sockets.map((s) => s.closed)), 15_000, () => {
      throw new Error(`${50 - closedCount} of 50 stalled connections still open after 15 s`)
    })
    const after = await get(port, '/healthz')
    assert.equal(after.statusCode, 200)
  } finally {
    for (const { socket } of sockets) socket.destroy()
  }
})

test('the request timeout bounds receiving a request, not running it: a call longer than the timeout still answers', async (t) => {
  const { app } = await buildTestApp(t, { REQUEST_TIMEOUT_MS: '200' })
  app.gateway.registry.register(fixtureTool('slow', { handler: () => new Promise((resolve) => setTimeout(() => resolve('{"done":true}'), 1_500)) }))
  const port = await listen(app)
  const answer = await new Promise<{ status: number, body: string }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/dispatch/slow', method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => { body += chunk })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end('{}')
  })
  assert.equal(answer.status, 200)
  assert.equal(JSON.parse(answer.body).content, '{"done":true}')
})

test('connections beyond MAX_CONNECTIONS are closed on arrival; a freed slot serves again', async (t) => {
  const { app } = await buildTestApp(t, { MAX_CONNECTIONS: '5' })
  const port = await listen(app)
  const held = await Promise.all(Array.from({ length: 5 }, () => stalled(port, '')))
  try {
    await overTheLimit(port, held)
  } finally {
    for (const { socket } of held) socket.destroy()
  }
})

async function overTheLimit (port: number, held: Array<{ socket: Socket, closed: Promise<void> }>): Promise<void> {
  const extra = await stalled(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n')
  let answered = ''
  extra.socket.on('data', (chunk) => { answered += String(chunk) })
  await withTimeout(extra.closed, 10_000, () => { throw new Error('the connection over the limit was not closed') })
  assert.equal(answered, '', 'nothing was served over the limit')
  held[0].socket.destroy()
  await held[0].closed
  // The server learns of the close asynchronously: retry briefly.
  let status = 0
  for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
    status = await get(port, '/healthz').then((res) => res.statusCode ?? 0, () => 0)
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  assert.equal(status, 200)
}

test('a client X-Request-Id is adopted only when short and of plain characters; otherwise one is generated', async (t) => {
  const { app } = await buildTestApp(t)
  const idOf = async (value: string): Promise<string> =>
    (await app.inject({ url: '/healthz', headers: { 'x-request-id': value } })).headers['x-request-id'] as string
  assert.equal(await idOf('trace-4f1c.9_A:2'), 'trace-4f1c.9_A:2')
  for (const bad of ['x'.repeat(129), '<script>alert(1)</script>', 'two words', 'quote"d', 'é-accent', '']) {
    assert.match(await idOf(bad), UUID, JSON.stringify(bad))
  }
  // Also on answers that never reach a handler.
  const missing = await app.inject({ url: '/no-such-route', headers: { 'x-request-id': 'y'.repeat(500) } })
  assert.match(missing.headers['x-request-id'] as string, UUID)
})

test('while draining, every answer says Connection: close, so keep-alive clients do not reuse a socket about to close', async (t) => {
  const { app } = await buildTestApp(t)
  const release = Promise.withResolvers<string>()
  const started = Promise.withResolvers<void>()
  app.gateway.registry.register(fixtureTool('hold', { handler: () => { started.resolve(); return release.promise } }))
  const port = await listen(app)
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  t.after(() => agent.destroy())

  const before = await get(port, '/healthz', agent)
  assert.equal(before.headers.connection, 'keep-alive')
  // On its own keep-alive connection, running when draining begins: its answer closes too.
  const callAgent = new Agent({ keepAlive: true })
  t.after(() => callAgent.destroy())
  const call = new Promise<[number, string | undefined]>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/dispatch/hold', method: 'POST', agent: callAgent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume().on('end', () => resolve([res.statusCode ?? 0, res.headers.connection]))
    })
    req.on('error', reject)
    req.end('{}')
  })
  await started.promise
  const drained = drainAndClose(app, 10_000)
  try {
    const during = await get(port, '/healthz', agent)
    assert.equal(during.statusCode, 200)
    assert.equal(during.headers.connection, 'close')
    const notFound = await get(port, '/no-such-route', agent)
    assert.equal(notFound.headers.connection, 'close')
  } finally {
    release.resolve('{}')
  }
  assert.deepEqual(await call, [200, 'close'])
  await drained
})
