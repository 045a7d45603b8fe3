// DNS-rebinding protection: a gateway on loopback answers only requests addressed to a loopback
// name, on every route (a rebound page could otherwise read /definitions and post to /dispatch);
// http.allowedHosts names the hosts of any other gateway.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'
import { allowedHostnames } from '../../src/http/host-check.ts'

/** A real request with a Host header of our choosing (fetch may not set it). */
async function withHost (port: number, host: string, method: string, path: string, body?: unknown): Promise<{ status: number, json: Record<string, unknown> }> {
  return await new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { text += chunk })
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }) })
    })
    req.on('error', reject)
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

async function listening (t: Parameters<typeof buildTestApp>[0], env: Record<string, string> = {}) {
  const { app } = await buildTestApp(t, env)
  let ran = 0
  app.gateway.registry.register(fixtureTool('echo', { handler: async () => { ran++; return 'ran' } }))
  await app.listen({ host: '127.0.0.1', port: 0 })
  return { port: (app.server.address() as { port: number }).port, ran: () => ran }
}

test('on loopback, a request addressed to another host is refused 403 on every route; nothing runs', async (t) => {
  const { port, ran } = await listening(t)
  const definitions = await withHost(port, 'rebound.example:8080', 'GET', '/definitions')
  assert.equal(definitions.status, 403)
  assert.equal(definitions.json.code, 'GW_ERR_HOST_NOT_ALLOWED')
  assert.match(definitions.json.message as string, /rebound\.example.*localhost, 127\.0\.0\.1, \[::1\].*ALLOWED_HOSTS/)
  const dispatch = await withHost(port, 'rebound.example:8080', 'POST', '/dispatch/echo', {})
  assert.equal(dispatch.status, 403)
  assert.equal((dispatch.json.error as { code: string }).code, 'GW_ERR_HOST_NOT_ALLOWED')
  const mcp = await withHost(port, 'rebound.example', 'POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } })
  assert.equal(mcp.status, 403)
  assert.equal((mcp.json.error as { data: { code: string } }).data.code, 'GW_ERR_HOST_NOT_ALLOWED')
  assert.equal(ran(), 0)
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'LOCALHOST']) {
    assert.equal((await withHost(port, host, 'POST', '/dispatch/echo', {})).status, 200, host)
  }
  assert.equal(ran(), 4)
})

test('http.allowedHosts names the hosts to answer; * turns the check off', async (t) => {
  const named = await listening(t, { ALLOWED_HOSTS: 'gateway.internal' })
  assert.equal((await withHost(named.port, 'gateway.internal:443', 'GET', '/definitions')).status, 200)
  assert.equal((await withHost(named.port, 'localhost', 'GET', '/definitions')).status, 403)
  const any = await listening(t, { ALLOWED_HOSTS: '*' })
  assert.equal((await withHost(any.port, 'anything.example', 'GET', '/definitions')).status, 200)
})

test('which hosts: loopback names on a loopback HOST, none checked on other addresses unless named', () => {
  const config = (host: string, allowedHosts: string[] = []) => ({ host, http: { allowedHosts } }) as Parameters<typeof allowedHostnames>[0]
  assert.deepEqual(allowedHostnames(config('127.0.0.1')), ['localhost', '127.0.0.1', '[::1]'])
  assert.deepEqual(allowedHostnames(config('::1')), ['localhost', '127.0.0.1', '[::1]'])
  assert.deepEqual(allowedHostnames(config('127.0.0.2')), ['localhost', '127.0.0.1', '[::1]', '127.0.0.2'])
  assert.equal(allowedHostnames(config('0.0.0.0')), undefined)
  assert.deepEqual(allowedHostnames(config('0.0.0.0', ['Gateway.Internal'])), ['gateway.internal'])
  assert.equal(allowedHostnames(config('127.0.0.1', ['*'])), undefined)
})
