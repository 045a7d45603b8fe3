// GET /definitions?format=typescript: the tools of the default answer as one TypeScript declaration,
// text/plain, with its own ETag and token count; the caller's scope, selection and ranking apply.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'
import { bearer, configFolder, keysYaml } from '../helpers/keys.ts'
import { typescriptDeclarations } from '../../src/definitions/formats/typescript.ts'
import { typescriptPayload } from '../../src/definitions/variants.ts'
import { payloadTokens } from '../../src/definitions/token-count.ts'
import type { OpenAIFunctionTool } from '../../src/definitions/formats/shapes.ts'

const OPERATOR_KEY = 'operator-key-0c1d2e3f'
const LIMITED_KEY = 'limited-key-4a5b6c7d'

async function withTools (t: Parameters<typeof buildTestApp>[0], env: Record<string, string> = {}) {
  const built = await buildTestApp(t, env)
  const { registry } = built.app.gateway
  registry.register(fixtureTool('read_file', { toolset: 'file' }))
  registry.register(fixtureTool('web_search', { toolset: 'web', schema: { description: 'Search the web', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } } }))
  registry.register(fixtureTool('terminal', { toolset: 'terminal' }))
  registry.register(fixtureTool('offline', { toolset: 'web', checkFn: () => ({ available: false, reason: 'no key' }) }))
  return built
}

/** The methods a declaration text declares, in order. */
function declared (text: string): string[] {
  return [...text.matchAll(/^ {2}'?([\w-]+)'?\(args: /gm)].map((match) => match[1])
}

test('format=typescript declares the tools of the default answer, as text/plain', async (t) => {
  const { app } = await withTools(t)
  const chat = await app.inject('/definitions')
  const res = await app.inject('/definitions?format=typescript')
  assert.equal(res.statusCode, 200)
  assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
  const tools = (JSON.parse(chat.body) as OpenAIFunctionTool[]).map((tool) => tool.function)
  assert.equal(res.body, typescriptDeclarations(tools))
  assert.deepEqual(declared(res.body), ['read_file', 'terminal', 'web_search'], 'unavailable tools are left out, as in the default answer')
  assert.match(res.body, /^ {2}web_search\(args: \{\n {4}query: string\n {2}\}\): Promise<unknown>$/m)
  // The selection and the ranking are the default answer's.
  assert.deepEqual(declared((await app.inject('/definitions?format=typescript&toolsets=web,file&disabled=file')).body), ['web_search'])
  const ranked = await app.inject('/definitions?format=typescript&query=search%20the%20web&limit=1')
  assert.equal(ranked.statusCode, 200)
  assert.deepEqual(declared(ranked.body), ['web_search'])
  assert.notEqual(ranked.headers.etag, res.headers.etag)
})

test('a key limited to toolsets gets the declarations of its own tools only', async (t) => {
  const { file } = await configFolder(t, keysYaml([{ name: 'operator', key: OPERATOR_KEY }, { name: 'limited', key: LIMITED_KEY, toolsets: ['x'] }]))
  const { app } = await buildTestApp(t, { GATEWAY_CONFIG: file })
  app.gateway.registry.register(fixtureTool('alpha', { toolset: 'x' }))
  app.gateway.registry.register(fixtureTool('beta_payroll', { toolset: 'y' }))
  const limited = await app.inject({ url: '/definitions?format=typescript', headers: bearer(LIMITED_KEY) })
  assert.equal(limited.statusCode, 200)
  assert.deepEqual(declared(limited.body), ['alpha'])
  assert.ok(!limited.body.includes('beta_payroll'))
  const operator = await app.inject({ url: '/definitions?format=typescript', headers: bearer(OPERATOR_KEY) })
  assert.deepEqual(declared(operator.body), ['alpha', 'beta_payroll'])
  assert.notEqual(operator.headers.etag, limited.headers.etag)
  const ranked = await app.inject({ url: '/definitions?format=typescript&query=payroll%20fixture', headers: bearer(LIMITED_KEY) })
  assert.ok(!ranked.body.includes('beta_payroll'), 'a search never ranks a tool outside the key')
  assert.equal((await app.inject('/definitions?format=typescript')).statusCode, 401)
})

test('its own ETag, 304 on If-None-Match, a new tag after a change; rendered once per cached answer', async (t) => {
  const { app } = await withTools(t)
  const chat = await app.inject('/definitions?toolsets=web')
  const first = await app.inject('/definitions?format=typescript&toolsets=web')
  const etag = first.headers.etag as string
  assert.match(etag, /^".+"$/)
  assert.notEqual(etag, chat.headers.etag, 'never the default answer\'s tag')
  assert.equal(first.headers['cache-control'], 'no-cache')
  const again = await app.inject({ url: '/definitions?format=typescript&toolsets=web', headers: { 'if-none-match': etag } })
  assert.equal(again.statusCode, 304)
  assert.equal(again.body, '')
  assert.equal(again.headers['content-length'], undefined)
  assert.equal(again.headers.etag, etag)
  const asChat = await app.inject({ url: '/definitions?toolsets=web', headers: { 'if-none-match': etag } })
  assert.equal(asChat.statusCode, 200, 'the declarations\' tag is no tag of the JSON answer')
  app.gateway.registry.register(fixtureTool('web_extract', { toolset: 'web' }))
  const changed = await app.inject({ url: '/definitions?format=typescript&toolsets=web', headers: { 'if-none-match': etag } })
  assert.equal(changed.statusCode, 200)
  assert.notEqual(changed.headers.etag, etag)
  assert.deepEqual(declared(changed.body), ['web_extract', 'web_search'])
  // Cached against the default answer it comes from: the same object, not a new rendering.
  const select = () => ['web_search']
  const base = await app.gateway.definitions.buildFor('typescript-test', select)
  assert.equal(typescriptPayload(base), typescriptPayload(await app.gateway.definitions.buildFor('typescript-test', select)))
})

test('X-Definitions-Tokens counts the text served', async (t) => {
  const { app } = await withTools(t)
  const res = await app.inject('/definitions?format=typescript')
  const tokens = Number(res.headers['x-definitions-tokens'])
  assert.ok(Number.isInteger(tokens) && tokens > 10, String(res.headers['x-definitions-tokens']))
  assert.equal(tokens, payloadTokens({ bytes: Buffer.from(res.body, 'utf8') }))
  const chat = Number((await app.inject('/definitions')).headers['x-definitions-tokens'])
  assert.ok(tokens < chat, `the declarations (${tokens}) cost fewer tokens than the JSON (${chat})`)
  const ranked = await app.inject('/definitions?format=typescript&query=web&limit=1')
  assert.equal(Number(ranked.headers['x-definitions-tokens']), payloadTokens({ bytes: Buffer.from(ranked.body, 'utf8') }))
})

test('strict and defer_loading do not apply to typescript; an unknown format lists it', async (t) => {
  const { app } = await withTools(t)
  for (const [query, message] of [
    ['format=typescript&strict=true', /strict=true applies to the formats chat and responses only .*not to typescript/],
    ['format=typescript&defer_loading=true', /defer_loading=true applies to format=anthropic only .*not to typescript/],
    ['format=ts', /unknown format "ts": use one of chat, responses, anthropic, gemini, mcp, typescript/]
  ] as const) {
    const res = await app.inject(`/definitions?${query}`)
    assert.equal(res.statusCode, 400, query)
    assert.equal(res.json().code, 'GW_ERR_BAD_REQUEST', query)
    assert.match(res.json().message, message, query)
  }
  assert.equal((await app.inject('/definitions?format=typescript&strict=false&defer_loading=false')).statusCode, 200)
})
