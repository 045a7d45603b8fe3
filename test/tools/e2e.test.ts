// End to end through HTTP with the real built-in tools: each toolset's tools appear in
// /definitions (or are absent with a reason in /tools when off) and POST /dispatch runs them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { buildTestApp } from '../helpers/app.ts'

function names (body: string): string[] {
  return (JSON.parse(body) as Array<{ function: { name: string } }>).map((t) => t.function.name)
}

test('file toolset: listed, and write_file then read_file round-trip through HTTP', async (t) => {
  const { app } = await buildTestApp(t, {}, { builtins: true })
  assert.deepEqual(names((await app.inject('/definitions?toolsets=file')).body), ['patch', 'read_file', 'search_files', 'write_file'])
  const write = await app.inject({ method: 'POST', url: '/dispatch/write_file', payload: { path: 'a/b.txt', content: 'héllo\nworld\n' } })
  assert.equal(write.statusCode, 200, write.body)
  const read = await app.inject({ method: 'POST', url: '/dispatch/read_file', payload: JSON.stringify(JSON.stringify({ path: 'a/b.txt' })), headers: { 'content-type': 'application/json' } })
  assert.equal(read.statusCode, 200)
  assert.match(JSON.parse(read.json().content).content, /^1\|héllo\n2\|world/)
  const escape = await app.inject({ method: 'POST', url: '/dispatch/read_file', payload: { path: '../../etc/passwd' } })
  assert.equal(escape.json().ok, false)
  assert.doesNotMatch(escape.json().content, /root:/)
})

test('web toolset: web_extract fetches an allowlisted local page; web_search is absent with its reason', async (t) => {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end('<html><head><title>Gateway notes</title></head><body><article><h1>Notes</h1><p>The gateway turns pages into markdown for models to read.</p></article></body></html>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.address() as AddressInfo
  const { app } = await buildTestApp(t, { WEB_ALLOW_HOSTS: '127.0.0.1' }, { builtins: true })
  assert.deepEqual(names((await app.inject('/definitions?toolsets=web')).body), ['web_extract'])
  const search = (await app.inject('/tools?toolset=web')).json().tools.find((tool: { name: string }) => tool.name === 'web_search')
  assert.equal(search.available, false)
  assert.match(search.reason, /SEARXNG_URL/)
  const res = await app.inject({ method: 'POST', url: '/dispatch/web_extract', payload: { urls: [`http://127.0.0.1:${port}/notes`] } })
  assert.equal(res.statusCode, 200, res.body)
  const [page] = JSON.parse(res.json().content).results
  assert.equal(page.title, 'Gateway notes')
  assert.match(page.content, /turns pages into markdown/)
})

test('terminal toolset: off by default (absent, reason in /tools, 503 on dispatch), on when enabled', async (t) => {
  const off = await buildTestApp(t, {}, { builtins: true })
  assert.deepEqual(names((await off.app.inject('/definitions?toolsets=terminal')).body), [])
  const listed = (await off.app.inject('/tools?toolset=terminal')).json().tools
  assert.deepEqual(listed.map((tool: { name: string }) => tool.name), ['process', 'terminal'])
  for (const tool of listed) assert.match(tool.reason, /GATEWAY_ENABLE_TERMINAL=true/)
  const refused = await off.app.inject({ method: 'POST', url: '/dispatch/terminal', payload: { command: 'echo hi' } })
  assert.equal(refused.statusCode, 503)

  const on = await buildTestApp(t, { GATEWAY_ENABLE_TERMINAL: 'true' }, { builtins: true })
  assert.deepEqual(names((await on.app.inject('/definitions?toolsets=terminal')).body), ['process', 'terminal'])
  const res = await on.app.inject({ method: 'POST', url: '/dispatch/terminal', payload: { command: 'echo "hi from $(basename "$PWD")"' } })
  assert.equal(res.statusCode, 200, res.body)
  const result = JSON.parse(res.json().content)
  assert.equal(result.exit_code, 0)
  assert.match(result.output, /hi from workspace/)
})

test('the safe toolset holds no terminal and nothing that writes', async (t) => {
  const { app } = await buildTestApp(t, { GATEWAY_ENABLE_TERMINAL: 'true', SEARXNG_URL: 'http://127.0.0.1:9' }, { builtins: true })
  const safe = (await app.inject('/toolsets')).json().toolsets.find((ts: { name: string }) => ts.name === 'safe')
  // read_result only reads back what this same caller was already given.
  assert.deepEqual(safe.tools, ['read_result', 'web_extract', 'web_search'])
  for (const forbidden of ['terminal', 'process', 'write_file', 'patch']) assert.ok(!safe.tools.includes(forbidden), forbidden)
})
