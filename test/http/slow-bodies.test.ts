// Issue 25 item 3: slow bodies hold no connection. A request refused before its body arrived (no
// key) is answered and its connection closed at once, however slowly the body trickles; a body
// that stops arriving is answered 408 within BODY_IDLE_TIMEOUT_MS and its connection closed.
// Raw sockets on loopback, bounded in count and time.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

async function started (t: Parameters<typeof buildTestApp>[0], env: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'gw-slow-bodies-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'gw.yaml'), `auth:\n  keys:\n    - { name: alpha, sha256: ${createHash('sha256').update('ka').digest('hex')} }\n`)
  const built = await buildTestApp(t, { GATEWAY_CONFIG: join(dir, 'gw.yaml'), ...env })
  built.app.gateway.registry.register(fixtureTool('echo'))
  await built.app.listen({ host: '127.0.0.1', port: 0 })
  const address = built.app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return { ...built, port: address.port }
}

interface Seen { status: number, closedAfterMs: number, connectionHeader: string | undefined }

/** Sends the head and the start of a 1 000-byte body, then a byte every `trickleMs` (0: none) until the server closes. */
function slowPost (port: number, headers: string, trickleMs: number): { socket: Socket, seen: Promise<Seen> } {
  const socket = connect(port, '127.0.0.1')
  const began = Date.now()
  let answer = ''
  const seen = new Promise<Seen>((resolve, reject) => {
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => { answer += chunk })
    socket.on('error', () => {})
    socket.once('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1])
      if (Number.isNaN(status)) reject(new Error(`closed without an answer: ${JSON.stringify(answer)}`))
      resolve({ status, closedAfterMs: Date.now() - began, connectionHeader: /\r\nconnection: ([^\r]+)/i.exec(answer)?.[1] })
    })
  })
  socket.write(`POST /dispatch/echo HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n${headers}\r\n{`)
  if (trickleMs > 0) {
    const trickle = setInterval(() => { if (!socket.destroyed) socket.write(' ') }, trickleMs)
    socket.once('close', () => clearInterval(trickle))
  }
  return { socket, seen }
}

test('100 slow POSTs without a key are answered 401 and closed at once, not kept for the request timeout', async (t) => {
  const { port } = await started(t)
  const posts = Array.from({ length: 100 }, () => slowPost(port, '', 200))
  t.after(() => { for (const { socket } of posts) socket.destroy() })
  const seen = await Promise.all(posts.map(async ({ seen }) => await seen))
  for (const one of seen) {
    assert.equal(one.status, 401)
    assert.equal(one.connectionHeader, 'close')
  }
  const slowest = Math.max(...seen.map((one) => one.closedAfterMs))
  assert.ok(slowest < 5_000, `the last connection closed after ${slowest} ms`)
})

test('a body that stops arriving is answered 408 GW_ERR_REQUEST_TIMEOUT after BODY_IDLE_TIMEOUT_MS, naming it, and closed', async (t) => {
  const { port } = await started(t, { BODY_IDLE_TIMEOUT_MS: '400' })
  const stalled = slowPost(port, 'authorization: Bearer ka\r\n', 0)
  t.after(() => stalled.socket.destroy())
  let body = ''
  stalled.socket.on('data', (chunk: string) => { body += chunk })
  const seen = await stalled.seen
  assert.equal(seen.status, 408)
  assert.equal(seen.connectionHeader, 'close')
  assert.ok(seen.closedAfterMs >= 350 && seen.closedAfterMs < 5_000, `closed after ${seen.closedAfterMs} ms`)
  assert.match(body, /GW_ERR_REQUEST_TIMEOUT/)
  assert.match(body, /BODY_IDLE_TIMEOUT_MS/)
})

test('a body that keeps arriving is not cut by the idle timeout, and its call answers on a connection kept alive', async (t) => {
  const { port } = await started(t, { BODY_IDLE_TIMEOUT_MS: '400' })
  const socket = connect(port, '127.0.0.1')
  t.after(() => socket.destroy())
  const body = JSON.stringify({ text: 'slow but steady' })
  let answer = ''
  socket.setEncoding('utf8').on('data', (chunk: string) => { answer += chunk })
  socket.write(`POST /dispatch/echo HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ka\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`)
  for (const char of body) {
    socket.write(char)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const deadline = Date.now() + 5_000
  while (!/\r\n\r\n[\s\S]*\}$/.test(answer) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  assert.match(answer, /^HTTP\/1\.1 200/)
  assert.doesNotMatch(answer, /connection: close/i)
  assert.equal(socket.destroyed, false)
})
