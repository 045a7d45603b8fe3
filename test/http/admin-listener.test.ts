// Issue 25 item 3: the admin port answers probes and scrapes while traffic saturates the main
// port. Here the main port's connection cap is taken by clients stuck in their headers: new
// connections to it are closed on arrival, while the admin port serves /healthz, /readyz and
// /metrics (without a key) and nothing else. Real sockets on loopback.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { buildTestApp } from '../helpers/app.ts'

test('with the main port saturated, the admin port serves /healthz, /readyz and /metrics without a key, and no other route', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-admin-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'gw.yaml'), `auth:\n  keys:\n    - { name: alpha, sha256: ${createHash('sha256').update('ka').digest('hex')} }\n`)
  const { app } = await buildTestApp(t, { GATEWAY_CONFIG: join(dir, 'gw.yaml'), MAX_CONNECTIONS: '4', ADMIN_PORT: '0' })
  const main = await app.listen({ host: '127.0.0.1', port: 0 })
  const admin = `http://127.0.0.1:${await app.listenAdmin()}`

  const held: Socket[] = []
  t.after(() => { for (const socket of held) socket.destroy() })
  for (let i = 0; i < 4; i++) {
    const socket = connect(Number(new URL(main).port), '127.0.0.1')
    socket.on('error', () => {})
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n')
    held.push(socket)
  }
  await new Promise((resolve) => setTimeout(resolve, 100))
  await assert.rejects(fetch(`${main}/healthz`), 'the main port is saturated')

  const health = await fetch(`${admin}/healthz`)
  assert.equal(health.status, 200)
  assert.deepEqual(await health.json(), { status: 'ok' })
  const ready = await fetch(`${admin}/readyz`)
  assert.equal(ready.status, 200)
  assert.equal(((await ready.json()) as { ready: boolean }).ready, true)
  const metrics = await fetch(`${admin}/metrics`)
  assert.equal(metrics.status, 200)
  assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain/)
  assert.match(await metrics.text(), /# TYPE /)
  assert.equal((await fetch(`${admin}/definitions`)).status, 404)

  // Closed with the app: the port no longer answers.
  for (const socket of held) socket.destroy()
  await app.close()
  await assert.rejects(fetch(`${admin}/healthz`))
})

test('without ADMIN_PORT there is no admin listener', async (t) => {
  const { app } = await buildTestApp(t, {})
  await app.listen({ host: '127.0.0.1', port: 0 })
  assert.equal(await app.listenAdmin(), undefined)
})

test('during a drain the admin port answers /readyz 503 (the pod leaves the Service) and /healthz 200', async (t) => {
  const { app } = await buildTestApp(t, { ADMIN_PORT: '0' })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const admin = `http://127.0.0.1:${await app.listenAdmin()}`
  app.lifecycle.beginDrain()
  assert.equal((await fetch(`${admin}/readyz`)).status, 503)
  assert.equal((await fetch(`${admin}/healthz`)).status, 200)
})
