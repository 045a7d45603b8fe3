// Tool search: the ranking's quality on real MCP tools (bench/search), GET /definitions?query=
// (scope, limit, errors, ETag) and the search_tools tool (scoped to the caller's key).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app/app.ts'
import { loadConfig } from '../../src/config/load.ts'
import { createLogger } from '../../src/app/logger.ts'
import { splitWords, ToolIndex } from '../../src/search/tool-index.ts'
import { scoreSearch } from '../../bench/search/score.ts'
import { captureLogger } from '../helpers/logger.ts'
import { fixtureTool } from '../helpers/tools.ts'

// Measured 83.5% (bench/search/README.md); a floor a little under it, so a regression fails.
const RECALL_AT_5_FLOOR = 0.8

test('recall@5 on the labelled catalogue of real MCP tools stays above its floor', () => {
  const scores = scoreSearch()
  assert.ok(scores.tools >= 200, `${scores.tools} tools`)
  assert.ok(scores.queries >= 100, `${scores.queries} queries`)
  assert.ok(scores.recallAt5 >= RECALL_AT_5_FLOOR, `recall@5 ${scores.recallAt5} under ${RECALL_AT_5_FLOOR}`)
  assert.ok(scores.recallAt10 >= scores.recallAt5 && scores.recallAt5 >= scores.recallAt1)
})

test('names are split on _, - and camelCase, and searched with descriptions and parameters', () => {
  assert.deepEqual(splitWords('getUserProfile kubectl_logs API-post-search HTMLParser'), ['get', 'User', 'Profile', 'kubectl', 'logs', 'API', 'post', 'search', 'HTML', 'Parser'])
  const index = new ToolIndex([
    { name: 'getUserProfile', description: 'Who someone is', parameters: {} },
    { name: 'kubectl_logs', description: 'Container output', parameters: {} },
    { name: 'send', description: 'Deliver something', parameters: { type: 'object', properties: { channel: { type: 'string', description: 'Slack channel id' } } } }
  ])
  assert.equal(index.rank('the user profile', 3)[0]!.name, 'getUserProfile')
  assert.equal(index.rank('read the logs', 3)[0]!.name, 'kubectl_logs')
  assert.equal(index.rank('post to a slack channel', 3)[0]!.name, 'send', 'parameter descriptions count')
  assert.deepEqual(index.rank('logs', 3, (name) => name !== 'kubectl_logs'), [], 'the filter leaves a tool out')
})

const OPERATOR_KEY = 'operator-key-5e6f7a8b'
const LIMITED_KEY = 'limited-key-9c0d1e2f'
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')
const bearer = (key: string) => ({ authorization: `Bearer ${key}` })
interface TestContext { after: (fn: () => Promise<void> | void) => void }

/** Keys `operator` (every toolset) and `limited` (toolsets shots and discovery); search_tools on. */
async function searchApp (t: TestContext): Promise<FastifyInstance> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-search-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'gateway.yaml'), [
    'searchTool: true',
    'auth:',
    '  keys:',
    `    - { name: operator, sha256: ${sha256(OPERATOR_KEY)} }`,
    `    - { name: limited, sha256: ${sha256(LIMITED_KEY)}, toolsets: [shots, discovery] }`,
    ''
  ].join('\n'))
  const config = await loadConfig({ cwd: dir, env: { GATEWAY_CONFIG: 'gateway.yaml', TOOLS_DIR: join(dir, 'none'), WORKSPACE_ROOT: join(dir, 'ws'), LOG_LEVEL: 'silent' } })
  const app = await buildApp(config, { logger: createLogger(config, captureLogger().stream) })
  t.after(() => app.close())
  const tool = (name: string, toolset: string, description: string, extra = {}) =>
    app.gateway.registry.register(fixtureTool(name, { toolset, description, ...extra }))
  tool('take_screenshot', 'shots', 'Capture an image of the current web page')
  tool('record_screencast', 'shots', 'Record a video of the web page')
  tool('screenshot_secret_admin', 'admin', 'Capture a screenshot of the admin console')
  tool('screenshot_offline', 'shots', 'Take a screenshot on a printer', { checkFn: () => ({ available: false, reason: 'no printer' }) })
  tool('create_issue', 'tracker', 'Open an issue in the bug tracker')
  return app
}

const names = (body: string): string[] => (JSON.parse(body) as Array<{ function: { name: string } }>).map((t) => t.function.name)

test('GET /definitions?query= answers the most relevant tools first, at most limit, within the key\'s scope', async (t) => {
  const app = await searchApp(t)
  const get = async (query: string, key = OPERATOR_KEY) => {
    const res = await app.inject({ url: `/definitions?${query}`, headers: bearer(key) })
    assert.equal(res.statusCode, 200, `${query}: ${res.body}`)
    return res
  }
  const best = await get('query=take%20a%20screenshot%20of%20the%20page')
  assert.equal(best.statusCode, 200)
  const found = names(best.body)
  assert.equal(found[0], 'take_screenshot')
  assert.ok(found.includes('screenshot_secret_admin'), 'the operator sees every toolset')
  assert.ok(!found.includes('screenshot_offline'), 'an unavailable tool is left out, as in the whole list')
  assert.deepEqual(names((await get('query=capture%20an%20image&limit=1')).body), ['take_screenshot'])
  const limited = names((await get('query=screenshot%20of%20the%20admin%20console', LIMITED_KEY)).body)
  assert.ok(limited.length > 0 && !limited.includes('screenshot_secret_admin'), `a limited key never gets another toolset's tool: ${limited.join(', ')}`)
  assert.ok(!names((await get('query=bug%20tracker%20issue', LIMITED_KEY)).body).includes('create_issue'), 'a match outside the key is never answered')
  assert.deepEqual(names((await get('query=video&toolsets=shots')).body), ['record_screencast'], 'the toolset selection applies')
})

test('GET /definitions?query=: ETag and 304 as for the whole list; the answer changes with the registry', async (t) => {
  const app = await searchApp(t)
  const url = '/definitions?query=screenshot'
  const first = await app.inject({ url, headers: bearer(OPERATOR_KEY) })
  const etag = first.headers.etag as string
  assert.match(etag, /^"[\w-]+"$/)
  assert.notEqual(etag, (await app.inject({ url: '/definitions', headers: bearer(OPERATOR_KEY) })).headers.etag)
  const again = await app.inject({ url, headers: { ...bearer(OPERATOR_KEY), 'if-none-match': etag } })
  assert.equal(again.statusCode, 304)
  app.gateway.registry.register(fixtureTool('screenshot_everything', { toolset: 'shots', description: 'Screenshot screenshot screenshot' }))
  const changed = await app.inject({ url, headers: { ...bearer(OPERATOR_KEY), 'if-none-match': etag } })
  assert.equal(changed.statusCode, 200, 'the index is rebuilt for the new registry')
  assert.equal(names(changed.body)[0], 'screenshot_everything')
})

test('the index is built once per registry snapshot and key scope, on the first search, not per request', async (t) => {
  const app = await searchApp(t)
  const { search, registry } = app.gateway
  const get = (key: string, query: string) => app.inject({ url: `/definitions?query=${query}`, headers: bearer(key) })
  assert.equal((await app.inject({ url: '/definitions', headers: bearer(OPERATOR_KEY) })).statusCode, 200)
  assert.equal(search.indexesBuilt, 0, 'the whole list builds no index')
  await get(OPERATOR_KEY, 'screenshot')
  await get(OPERATOR_KEY, 'video')
  await get(OPERATOR_KEY, 'issue&toolsets=tracker')
  assert.equal(search.indexesBuilt, 1, 'one index serves every query and selection of a scope')
  await get(LIMITED_KEY, 'screenshot')
  await get(LIMITED_KEY, 'video')
  assert.equal(search.indexesBuilt, 2, 'another key scope, another index')
  registry.register(fixtureTool('later', { toolset: 'shots' }))
  await get(LIMITED_KEY, 'screenshot')
  await get(LIMITED_KEY, 'later')
  assert.equal(search.indexesBuilt, 3, 'a registry change rebuilds, lazily, once')
})

test('GET /definitions: limit without query, an empty query and a limit out of range are 400s that say why', async (t) => {
  const app = await searchApp(t)
  const get = (query: string) => app.inject({ url: `/definitions?${query}`, headers: bearer(OPERATOR_KEY) })
  const noQuery = await get('limit=3')
  assert.equal(noQuery.statusCode, 400)
  assert.match(noQuery.json().message, /limit applies to a search: add query=/)
  for (const empty of ['query=', 'query=%20%20']) {
    const res = await get(empty)
    assert.equal(res.statusCode, 400, empty)
    assert.match(res.json().message, /query is empty/, empty)
  }
  for (const bad of ['query=x&limit=0', 'query=x&limit=51', 'query=x&limit=two', 'query=x&limit=1.5']) {
    const res = await get(bad)
    assert.equal(res.statusCode, 400, bad)
    assert.match(res.json().message, /limit must be a whole number from 1 to 50/, bad)
  }
})

test('search_tools finds tools with their schemas, never one outside the caller\'s key', async (t) => {
  const app = await searchApp(t)
  const call = async (key: string, args: Record<string, unknown>) => {
    const res = await app.inject({ method: 'POST', url: '/dispatch/search_tools', headers: bearer(key), payload: args })
    assert.equal(res.statusCode, 200, res.body)
    return res.json() as { status: string, content: string }
  }
  const operator = JSON.parse((await call(OPERATOR_KEY, { query: 'screenshot of the admin console', limit: 2 })).content)
  assert.deepEqual(operator.tools.map((tool: { name: string }) => tool.name), ['screenshot_secret_admin', 'take_screenshot'])
  assert.deepEqual(Object.keys(operator.tools[0]).sort(), ['description', 'name', 'parameters'])
  assert.equal(operator.tools[0].parameters.type, 'object')
  const limited = JSON.parse((await call(LIMITED_KEY, { query: 'screenshot of the admin console' })).content)
  const seen = limited.tools.map((tool: { name: string }) => tool.name)
  assert.deepEqual(seen, ['take_screenshot'], 'only the key\'s own, available tools, and never search_tools itself')
  const blank = await call(OPERATOR_KEY, { query: '   ' })
  assert.equal(blank.status, 'error')
  assert.match(blank.content, /query is empty/)
})

test('search_tools over /mcp answers within the key and the ?toolsets= selection of the session', async (t) => {
  const app = await searchApp(t)
  const base = await app.listen({ host: '127.0.0.1', port: 0 })
  const client = new Client({ name: 'search-test', version: '1' })
  const url = new URL(`${base}/mcp?toolsets=discovery,tracker`)
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: bearer(OPERATOR_KEY) } }))
  t.after(() => client.close())
  const listed = (await client.listTools()).tools.map((tool) => tool.name).sort()
  assert.deepEqual(listed, ['create_issue', 'search_tools'])
  const search = async (query: string): Promise<string[]> => {
    const result = await client.callTool({ name: 'search_tools', arguments: { query } })
    const text = (result.content as Array<{ type: string, text: string }>)[0]!.text
    return (JSON.parse(text) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)
  }
  assert.deepEqual(await search('open an issue in the bug tracker'), ['create_issue'])
  assert.deepEqual(await search('take a screenshot of the admin console'), [], 'tools outside the selection are never named')
})

test('GET /definitions?query= ranks in every format: the same tools, best first, each in its format\'s shape', async (t) => {
  const app = await searchApp(t)
  const ranked = async (format: string): Promise<string[]> => {
    const res = await app.inject({ url: `/definitions?query=take%20a%20screenshot&limit=2&format=${format}`, headers: bearer(OPERATOR_KEY) })
    assert.equal(res.statusCode, 200, `${format}: ${res.body}`)
    return (JSON.parse(res.body) as Array<{ name?: string, function?: { name: string } }>).map((tool) => tool.function?.name ?? tool.name as string)
  }
  const chat = await ranked('chat')
  assert.equal(chat[0], 'take_screenshot')
  for (const format of ['responses', 'anthropic', 'gemini', 'mcp']) assert.deepEqual(await ranked(format), chat, format)
  const strict = await app.inject({ url: '/definitions?query=screenshot&strict=true', headers: bearer(OPERATOR_KEY) })
  assert.ok((JSON.parse(strict.body) as Array<{ function: { strict: boolean } }>).every((tool) => tool.function.strict))
})
