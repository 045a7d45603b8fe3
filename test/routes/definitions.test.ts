// GET /definitions: OpenAI array, toolset selection, ETag / 304, unknown toolsets.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

async function withTools (t: Parameters<typeof buildTestApp>[0], env: Record<string, string> = {}) {
  const built = await buildTestApp(t, env)
  const { registry } = built.app.gateway
  registry.register(fixtureTool('read_file', { toolset: 'file' }))
  registry.register(fixtureTool('web_search', { toolset: 'web' }))
  registry.register(fixtureTool('terminal', { toolset: 'terminal' }))
  registry.register(fixtureTool('audit', { toolset: 'plugin-audit' }))
  registry.register(fixtureTool('offline', { toolset: 'web', checkFn: () => ({ available: false, reason: 'no key' }) }))
  return built
}

function names (body: string): string[] {
  return (JSON.parse(body) as Array<{ function: { name: string } }>).map((t) => t.function.name)
}

test('without a selection every available tool is served, sorted, in OpenAI form', async (t) => {
  const { app } = await withTools(t)
  const res = await app.inject('/definitions')
  assert.equal(res.statusCode, 200)
  assert.match(res.headers['content-type'] as string, /^application\/json/)
  assert.deepEqual(names(res.body), ['audit', 'read_file', 'terminal', 'web_search'])
  const first = JSON.parse(res.body)[0]
  assert.deepEqual(Object.keys(first), ['type', 'function'])
  assert.equal(first.type, 'function')
  assert.deepEqual(Object.keys(first.function).sort(), ['description', 'name', 'parameters'])
})

test('toolsets, composites, all, registry tags and disabled select the tools', async (t) => {
  const { app } = await withTools(t)
  const get = async (query: string) => names((await app.inject(`/definitions?${query}`)).body)
  assert.deepEqual(await get('toolsets=web'), ['web_search'])
  assert.deepEqual(await get('toolsets=file,%20web'), ['read_file', 'web_search'])
  assert.deepEqual(await get('toolsets=debugging'), ['read_file', 'terminal', 'web_search'])
  assert.deepEqual(await get('toolsets=debugging&disabled=terminal'), ['read_file', 'web_search'])
  assert.deepEqual(await get('toolsets=safe'), ['web_search'])
  assert.deepEqual(await get('toolsets=plugin-audit'), ['audit'])
  assert.deepEqual(await get('toolsets=all&disabled=web,file'), ['audit', 'terminal'])
  assert.deepEqual(await get('toolsets=*'), ['audit', 'read_file', 'terminal', 'web_search'])
  assert.deepEqual(await get('format=openai&toolsets=file'), ['read_file'])
})

test('an empty toolsets= never widens to every tool: it is a 400; an empty disabled= subtracts nothing', async (t) => {
  const { app } = await withTools(t)
  for (const query of ['toolsets=', 'toolsets=%20', 'toolsets=,', 'toolsets=%20,%20,', 'toolsets=&disabled=web']) {
    const res = await app.inject(`/definitions?${query}`)
    assert.equal(res.statusCode, 400, query)
    assert.equal(res.json().code, 'GW_ERR_BAD_REQUEST', query)
    assert.match(res.json().message, /toolsets names no toolset/, query)
  }
  const every = names((await app.inject('/definitions')).body)
  assert.deepEqual(names((await app.inject('/definitions?disabled=')).body), every)
  assert.deepEqual(names((await app.inject('/definitions?disabled=,%20')).body), every)
})

test('an unknown toolset is a 400 naming it and listing the valid ones', async (t) => {
  const { app } = await withTools(t)
  const res = await app.inject('/definitions?toolsets=web,nope,alsonope')
  assert.equal(res.statusCode, 400)
  const body = res.json()
  assert.equal(body.code, 'GW_ERR_UNKNOWN_TOOLSET')
  assert.match(body.message, /nope/)
  assert.match(body.message, /alsonope/)
  for (const valid of ['file', 'web', 'terminal', 'safe', 'debugging', 'plugin-audit', 'all']) assert.match(body.message, new RegExp(valid))
  // A typo gets the names it most likely meant.
  const typo = await app.inject('/definitions?toolsets=fiel,debuging')
  assert.equal(typo.statusCode, 400)
  assert.match(typo.json().message, /Unknown toolsets: "fiel" \(did you mean "file"\?\), "debuging" \(did you mean "debugging"\?\)\./)
  const disabled = await app.inject('/definitions?disabled=ghost')
  assert.equal(disabled.statusCode, 400)
  assert.match(disabled.json().message, /ghost/)
  const format = await app.inject('/definitions?format=claude')
  assert.equal(format.statusCode, 400)
  assert.equal(format.json().code, 'GW_ERR_BAD_REQUEST')
  assert.match(format.json().message, /unknown format "claude": use one of chat, responses, anthropic, gemini, mcp/)
})

test('ETag and If-None-Match: 304 while nothing changed, a new tag after a change', async (t) => {
  const { app } = await withTools(t)
  const first = await app.inject('/definitions?toolsets=web')
  const etag = first.headers.etag as string
  assert.match(etag, /^".+"$/)
  const again = await app.inject({ url: '/definitions?toolsets=web', headers: { 'if-none-match': etag } })
  assert.equal(again.statusCode, 304)
  assert.equal(again.body, '')
  assert.equal(again.headers['content-length'], undefined, 'a 304 announces no body')
  assert.equal(again.headers.etag, etag)
  app.gateway.registry.register(fixtureTool('web_extract', { toolset: 'web' }))
  const changed = await app.inject({ url: '/definitions?toolsets=web', headers: { 'if-none-match': etag } })
  assert.equal(changed.statusCode, 200)
  assert.notEqual(changed.headers.etag, etag)
  assert.deepEqual(names(changed.body), ['web_extract', 'web_search'])
  const other = await app.inject({ url: '/definitions?toolsets=file', headers: { 'if-none-match': etag } })
  assert.equal(other.statusCode, 200, 'another selection has another tag')
})

test('a tool turning unavailable leaves the answer and changes its tag', async (t) => {
  const { app } = await withTools(t, { })
  let up = true
  app.gateway.registry.register(fixtureTool('flaky', { toolset: 'web', checkFn: () => up }))
  const first = await app.inject('/definitions?toolsets=web')
  assert.deepEqual(names(first.body), ['flaky', 'web_search'])
  up = false
  app.gateway.availability.clear()
  const second = await app.inject('/definitions?toolsets=web')
  assert.deepEqual(names(second.body), ['web_search'])
  assert.notEqual(second.headers.etag, first.headers.etag)
})

test('annotations never reach /definitions: the OpenAI format has no place for them, the answer and its ETag stay the same', async (t) => {
  const { app } = await withTools(t)
  const before = await app.inject('/definitions')
  app.gateway.registry.register(fixtureTool('read_file', { toolset: 'file', annotations: { readOnly: true, openWorld: false, title: 'Read a file' } }))
  assert.deepEqual(app.gateway.registry.getEntry('read_file')!.annotations, { readOnly: true, openWorld: false, title: 'Read a file' })
  const after = await app.inject('/definitions')
  assert.equal(after.body, before.body)
  assert.equal(after.headers.etag, before.headers.etag)
})
