// Token cost: GET /definitions says what its answer costs (X-Definitions-Tokens), GET /tools what
// each tool's definition costs, both in o200k_base tokens of the text actually served.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { payloadTokens } from '../../src/definitions/token-count.ts'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

async function withTools (t: Parameters<typeof buildTestApp>[0]) {
  const built = await buildTestApp(t)
  const { registry } = built.app.gateway
  registry.register(fixtureTool('read_file', { toolset: 'file' }))
  registry.register(fixtureTool('web_search', { toolset: 'web' }))
  registry.register(fixtureTool('offline', { toolset: 'web', checkFn: () => ({ available: false, reason: 'no key' }) }))
  return built
}

test('X-Definitions-Tokens is the o200k count of the body served, on 200 and 304, per selection', async (t) => {
  const { app } = await withTools(t)
  const all = await app.inject('/definitions')
  const tokens = Number(all.headers['x-definitions-tokens'])
  assert.equal(tokens, countTokens(all.body))
  // A sanity bound independent of the tokenizer: JSON runs at roughly 2 to 6 bytes per token.
  assert.ok(tokens > all.body.length / 8 && tokens < all.body.length / 1.5, `${tokens} tokens for ${all.body.length} bytes`)

  const again = await app.inject({ url: '/definitions', headers: { 'if-none-match': all.headers.etag as string } })
  assert.equal(again.statusCode, 304)
  assert.equal(again.headers['x-definitions-tokens'], all.headers['x-definitions-tokens'])

  const web = await app.inject('/definitions?toolsets=web')
  assert.equal(Number(web.headers['x-definitions-tokens']), countTokens(web.body))
  assert.ok(Number(web.headers['x-definitions-tokens']) < tokens, 'fewer tools, fewer tokens')

  app.gateway.registry.register(fixtureTool('patch', { toolset: 'file', schema: { description: 'Edit part of a file. '.repeat(20), parameters: { type: 'object' } } }))
  const grown = await app.inject('/definitions')
  assert.equal(Number(grown.headers['x-definitions-tokens']), countTokens(grown.body))
  assert.ok(Number(grown.headers['x-definitions-tokens']) > tokens + 80, 'the new tool is counted')
})

test('a payload is counted once: later requests reuse the count kept with it', () => {
  const payload = { bytes: Buffer.from(JSON.stringify([{ type: 'function', function: { name: 'x', description: 'words '.repeat(50) } }])) }
  const first = payloadTokens(payload)
  assert.equal(first, countTokens(payload.bytes.toString('utf8')))
  payload.bytes.fill(0x20) // what a recount would see differs now
  assert.equal(payloadTokens(payload), first)
})

test('GET /tools gives each served definition its token count, null for an unavailable tool', async (t) => {
  const { app } = await withTools(t)
  let description = 'Search the web.'
  app.gateway.registry.register(fixtureTool('web_extract', { toolset: 'web', dynamicSchemaOverrides: () => ({ description }) }))
  const definitions = JSON.parse((await app.inject('/definitions')).body) as Array<{ function: { name: string } }>
  const tokensOf = async (): Promise<Map<string, number | null>> =>
    new Map(((await app.inject('/tools')).json().tools as Array<{ name: string, definitionTokens: number | null }>).map((tool) => [tool.name, tool.definitionTokens]))
  const counts = await tokensOf()
  for (const definition of definitions) {
    assert.equal(counts.get(definition.function.name), countTokens(JSON.stringify(definition)), definition.function.name)
  }
  assert.equal(counts.get('offline'), null, 'not served, so it costs nothing')

  // As served: a dynamic override of the description is what the model reads, so it is what counts.
  description = 'Search the web and return titles, addresses and snippets of the best matching pages. '.repeat(5)
  const longer = (await tokensOf()).get('web_extract')!
  assert.ok(longer > counts.get('web_extract')! + 50, `${longer} after the override, ${counts.get('web_extract')} before`)
})

test('X-Definitions-Tokens counts each format as served (every format, strict too)', async (t) => {
  const { app } = await withTools(t)
  const counts = new Set<number>()
  for (const query of ['format=chat', 'format=responses', 'format=anthropic', 'format=gemini', 'format=mcp', 'strict=true', 'format=responses&strict=true']) {
    const answer = await app.inject(`/definitions?${query}`)
    assert.equal(answer.statusCode, 200, query)
    assert.equal(Number(answer.headers['x-definitions-tokens']), countTokens(answer.body), query)
    counts.add(countTokens(answer.body))
  }
  assert.ok(counts.size >= 4, 'the formats differ in size, and so in tokens')
})
