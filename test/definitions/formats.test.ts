// GET /definitions in every format, against a real MCP upstream (server-everything over stdio) and
// the built-in tools. The served JSON is typed with the gateway's own shapes, which must be
// assignable to each SDK's types (tsc checks this file); at run time every key served must be a
// field of the SDK's type (the key lists are checked against the SDK types by `satisfies`).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type OpenAI from 'openai'
import type Anthropic from '@anthropic-ai/sdk'
import { Type as GeminiTypes, type FunctionDeclaration, type Schema } from '@google/genai'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { buildTestApp, type TestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'
import type { AnthropicTool, ChatTool, GeminiDeclaration, McpTool, ResponsesTool } from '../../src/definitions/formats/shapes.ts'

const everything = resolve(import.meta.dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js')

/** Gemini's Type is a string enum: on the wire it is its value, which a literal is not assignable to. */
type Wire<S> = S extends object ? { [K in keyof S]: K extends 'type' ? `${GeminiTypes}` : Wire<S[K]> } : S

// Compile-time: the gateway's shapes are the SDKs' shapes.
const asChat = (tools: ChatTool[]): OpenAI.Chat.Completions.ChatCompletionTool[] => tools
const asResponses = (tools: ResponsesTool[]): OpenAI.Responses.FunctionTool[] => tools
const asAnthropic = (tools: AnthropicTool[]): Anthropic.Messages.Tool[] => tools
const asGemini = (tools: GeminiDeclaration[]): Array<Wire<FunctionDeclaration>> => tools

// Run-time: every served key is one of these, and `satisfies` holds each list to the SDK type's fields.
const CHAT_KEYS = { type: true, function: true } satisfies Partial<Record<keyof OpenAI.Chat.Completions.ChatCompletionFunctionTool, true>>
const CHAT_FUNCTION_KEYS = { name: true, description: true, parameters: true, strict: true } satisfies Partial<Record<keyof OpenAI.FunctionDefinition, true>>
const RESPONSES_KEYS = { type: true, name: true, description: true, parameters: true, strict: true } satisfies Partial<Record<keyof OpenAI.Responses.FunctionTool, true>>
const ANTHROPIC_KEYS = { name: true, description: true, input_schema: true } satisfies Partial<Record<keyof Anthropic.Messages.Tool, true>>
const GEMINI_KEYS = { name: true, description: true, parameters: true } satisfies Partial<Record<keyof FunctionDeclaration, true>>
const GEMINI_SCHEMA_KEYS = {
  anyOf: true, default: true, description: true, enum: true, example: true, format: true, items: true, maxItems: true, maxLength: true, maxProperties: true, maximum: true, minItems: true, minLength: true, minProperties: true, minimum: true, nullable: true, pattern: true, properties: true, propertyOrdering: true, required: true, title: true, type: true
} satisfies Record<keyof Schema, true>

function keysWithin (value: object, allowed: object, where: string): void {
  for (const key of Object.keys(value)) assert.ok(Object.hasOwn(allowed, key), `${where}: ${key} is not a field of the SDK type`)
}

function checkGeminiSchema (schema: Wire<Schema>, where: string): void {
  keysWithin(schema, GEMINI_SCHEMA_KEYS, where)
  assert.ok(schema.type === undefined || (Object.values(GeminiTypes) as string[]).includes(schema.type), `${where}: type ${schema.type}`)
  assert.notEqual(schema.type, 'TYPE_UNSPECIFIED')
  for (const key of ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const) {
    if (schema[key] !== undefined) assert.match(schema[key], /^\d+$/, `${where}/${key}: an int64 as a string`)
  }
  if (schema.type === 'OBJECT') assert.ok(Object.keys(schema.properties ?? {}).length > 0, `${where}: an OBJECT has properties`)
  if (schema.type === 'ARRAY') assert.ok(schema.items !== undefined, `${where}: an ARRAY has items`)
  for (const [name, property] of Object.entries(schema.properties ?? {})) checkGeminiSchema(property, `${where}/properties/${name}`)
  if (schema.items !== undefined) checkGeminiSchema(schema.items, `${where}/items`)
  for (const [i, branch] of (schema.anyOf ?? []).entries()) checkGeminiSchema(branch, `${where}/anyOf/${i}`)
}

let built: TestApp
let dir: string
const cleanups: Array<() => Promise<void> | void> = []

// One gateway (and one server-everything child) for the whole file.
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gw-formats-'))
  await writeFile(join(dir, 'gw.yaml'), ['mcpServers:', '  everything:', `    command: ${JSON.stringify(process.execPath)}`, `    args: [${JSON.stringify(everything)}, stdio]`, ''].join('\n'))
  built = await buildTestApp({ after: (fn) => { cleanups.push(fn) } }, { GATEWAY_CONFIG: join(dir, 'gw.yaml'), MCP_SESSION_IDLE_MS: '60000' }, { builtins: true })
})

after(async () => {
  for (const fn of cleanups) await fn()
  await rm(dir, { recursive: true, force: true })
})

async function served<T> (query: string): Promise<{ tools: T[], body: string, etag: string }> {
  const res = await built.app.inject(`/definitions?${query}`)
  assert.equal(res.statusCode, 200, res.body)
  return { tools: JSON.parse(res.body) as T[], body: res.body, etag: res.headers.etag as string }
}

const chatNames = async (query = '') => (await served<ChatTool>(query)).tools.map((tool) => tool.function.name)

test('the default answer is the same bytes and ETag as format=chat and format=openai, and has no strict flag', async () => {
  const plain = await served<ChatTool>('')
  for (const query of ['format=chat', 'format=openai', 'format=chat&strict=false']) {
    const other = await served<ChatTool>(query)
    assert.equal(other.body, plain.body, query)
    assert.equal(other.etag, plain.etag, query)
  }
  assert.ok(plain.tools.some((tool) => tool.function.name === 'read_file'), 'built-in tools')
  assert.ok(plain.tools.some((tool) => tool.function.name === 'mcp__everything__echo'), 'MCP upstream tools')
  for (const tool of asChat(plain.tools)) {
    keysWithin(tool, CHAT_KEYS, tool.type)
    assert.equal(tool.type, 'function')
    keysWithin(tool.function, CHAT_FUNCTION_KEYS, tool.function.name)
    assert.equal(tool.function.strict, undefined)
  }
})

test('format=responses: flat FunctionTools, strict said (false) since the API defaults it to true', async () => {
  const { tools } = await served<ResponsesTool>('format=responses')
  assert.deepEqual(tools.map((tool) => tool.name), await chatNames())
  const chat = (await served<ChatTool>('')).tools
  for (const [i, tool] of asResponses(tools).entries()) {
    keysWithin(tool, RESPONSES_KEYS, tool.name)
    assert.deepEqual(tool, { type: 'function', name: chat[i].function.name, description: chat[i].function.description, parameters: chat[i].function.parameters, strict: false })
  }
})

test('format=anthropic: name, description, input_schema (an object schema)', async () => {
  const { tools } = await served<AnthropicTool>('format=anthropic')
  const chat = (await served<ChatTool>('')).tools
  assert.deepEqual(tools.map((tool) => tool.name), chat.map((tool) => tool.function.name))
  for (const [i, tool] of asAnthropic(tools).entries()) {
    keysWithin(tool, ANTHROPIC_KEYS, tool.name)
    assert.equal(tool.input_schema.type, 'object')
    assert.deepEqual(tool.input_schema, chat[i].function.parameters)
  }
})

test('format=gemini: FunctionDeclarations in Gemini\'s schema; a tool it cannot express is left out, its reason in /tools', async () => {
  const { tools } = await served<GeminiDeclaration>('format=gemini')
  for (const declaration of asGemini(tools)) {
    keysWithin(declaration, GEMINI_KEYS, declaration.name!)
    if (declaration.parameters !== undefined) checkGeminiSchema(declaration.parameters, declaration.name!)
  }
  const names = tools.map((tool) => tool.name)
  const readFile = tools.find((tool) => tool.name === 'read_file')!
  assert.deepEqual(readFile.parameters?.properties?.offset, { type: 'INTEGER', description: 'Line number to start at, 1-based. Default 1. Use next_offset from the previous result to continue.', minimum: 1 })
  const noArguments = tools.find((tool) => tool.name === 'mcp__everything__get_tiny_image')!
  assert.equal(noArguments.parameters, undefined, 'a tool without arguments has no parameters')
  // server-everything's get_prompt takes `arguments`, an open map: Gemini has no way to say it.
  assert.ok(!names.includes('mcp__everything__get_prompt'))
  const left = (await chatNames()).filter((name) => !names.includes(name))
  assert.deepEqual(left, ['mcp__everything__get_prompt'])
  const report = (await built.app.inject('/tools')).json() as { tools: Array<{ name: string, leftOutOf: Array<{ format: string, reason: string }> }> }
  const row = report.tools.find((tool) => tool.name === 'mcp__everything__get_prompt')!
  assert.deepEqual(row.leftOutOf.find((gap) => gap.format === 'gemini'), { format: 'gemini', reason: 'an object without declared properties is not supported in Gemini\'s schema at /properties/arguments' })
  assert.deepEqual(report.tools.find((tool) => tool.name === 'read_file')!.leftOutOf, [])
})

test('format=mcp: the tools /mcp lists to the same caller, annotations included', async (t) => {
  const { tools } = await served<McpTool>('format=mcp')
  const address = await built.app.listen({ host: '127.0.0.1', port: 0 })
  const client = new Client({ name: 'formats-test', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${address}/mcp`)))
  t.after(() => client.close())
  const listed = await client.listTools()
  assert.deepEqual(tools, JSON.parse(JSON.stringify(listed.tools)))
  assert.ok(tools.some((tool) => tool.annotations?.readOnlyHint === true), 'annotations carried over')
})

test('strict=true (chat, responses): strict definitions; a tool that cannot be strict is left out, its reason in /tools', async () => {
  const chat = await served<ChatTool>('strict=true')
  const responses = await served<ResponsesTool>('format=responses&strict=true')
  asChat(chat.tools)
  asResponses(responses.tools)
  assert.deepEqual(chat.tools.map((tool) => tool.function.name), responses.tools.map((tool) => tool.name))
  for (const [i, tool] of chat.tools.entries()) {
    assert.equal(tool.function.strict, true)
    assert.equal(responses.tools[i].strict, true)
    assert.deepEqual(responses.tools[i].parameters, tool.function.parameters)
    const parameters = tool.function.parameters as { properties: Record<string, unknown>, required: string[], additionalProperties: boolean }
    assert.deepEqual(parameters.required, Object.keys(parameters.properties), `${tool.function.name}: every property required`)
    assert.equal(parameters.additionalProperties, false)
  }
  const readFile = chat.tools.find((tool) => tool.function.name === 'read_file')!
  assert.deepEqual((readFile.function.parameters.properties as Record<string, { type: unknown }>).offset.type, ['integer', 'null'])
  const left = (await chatNames()).filter((name) => !chat.tools.some((tool) => tool.function.name === name))
  assert.deepEqual(left, ['mcp__everything__get_prompt'])
  const report = (await built.app.inject('/tools')).json() as { tools: Array<{ name: string, leftOutOf: Array<{ format: string, reason: string }> }> }
  assert.deepEqual(report.tools.find((tool) => tool.name === 'mcp__everything__get_prompt')!.leftOutOf.find((gap) => gap.format === 'strict'),
    { format: 'strict', reason: 'an object open to any property (additionalProperties) cannot be strict at /properties/arguments' })
})

test('an unknown format, a bad strict value and strict with another format are 400s naming the valid values', async () => {
  const cases: Array<[string, RegExp]> = [
    ['format=claude', /unknown format "claude": use one of chat, responses, anthropic, gemini, mcp/],
    ['format=constructor', /unknown format "constructor"/],
    ['strict=yes', /strict must be true or false \(got "yes"\)/],
    ['format=anthropic&strict=true', /strict=true applies to the formats chat and responses only .*not to anthropic/],
    ['format=gemini&strict=true', /not to gemini/],
    ['format=mcp&strict=true', /not to mcp/]
  ]
  for (const [query, message] of cases) {
    const res = await built.app.inject(`/definitions?${query}`)
    assert.equal(res.statusCode, 400, query)
    assert.equal(res.json().code, 'GW_ERR_BAD_REQUEST', query)
    assert.match(res.json().message, message, query)
  }
})

test('each format has its own ETag and 304; a registry change moves every one of them', async () => {
  const queries = ['', 'format=responses', 'format=anthropic', 'format=gemini', 'format=mcp', 'strict=true', 'format=responses&strict=true']
  const tags = new Map<string, string>()
  for (const query of queries) tags.set(query, (await served(query)).etag)
  assert.equal(new Set(tags.values()).size, queries.length, 'seven variants, seven tags')
  for (const query of queries) {
    const again = await built.app.inject({ url: `/definitions?${query}`, headers: { 'if-none-match': tags.get(query)! } })
    assert.equal(again.statusCode, 304, query)
    const other = await built.app.inject({ url: `/definitions?${query}`, headers: { 'if-none-match': tags.get(query === '' ? 'format=mcp' : '')! } })
    assert.equal(other.statusCode, 200, `${query}: another variant's tag does not match`)
  }
  built.app.gateway.registry.register(fixtureTool('zz_added', { toolset: 'testing' }))
  try {
    for (const query of queries) {
      const res = await built.app.inject({ url: `/definitions?${query}`, headers: { 'if-none-match': tags.get(query)! } })
      assert.equal(res.statusCode, 200, query)
      assert.match(res.body, /zz_added/, query)
    }
  } finally {
    built.app.gateway.registry.deregister('zz_added')
  }
})

test('a variant is built once per default answer: repeated requests return the same cached payload', async () => {
  const definitions = built.app.gateway.definitions
  const select = () => built.app.gateway.registry.snapshot().tools.keys()
  const variant = { format: 'gemini', strict: false, deferLoading: false, key: 'gemini' } as const
  const first = await definitions.buildVariant('formats-test', select, variant)
  const second = await definitions.buildVariant('formats-test', select, variant)
  assert.equal(second, first)
  assert.ok(Object.isFrozen(first.tools) && Object.isFrozen(first.tools[0]), 'shared answers are frozen')
})

test('a name Gemini refuses (a leading digit) leaves the tool out of format=gemini only, with the reason', async () => {
  built.app.gateway.registry.register(fixtureTool('9lives', { toolset: 'testing' }))
  try {
    assert.ok(!(await served<GeminiDeclaration>('format=gemini')).tools.some((tool) => tool.name === '9lives'))
    assert.ok((await served<AnthropicTool>('format=anthropic')).tools.some((tool) => tool.name === '9lives'))
    const row = (await built.app.inject('/tools')).json().tools.find((tool: { name: string }) => tool.name === '9lives')
    assert.deepEqual(row.leftOutOf, [{ format: 'gemini', reason: 'the name must start with a letter or _ in Gemini (^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$)' }])
  } finally {
    built.app.gateway.registry.deregister('9lives')
  }
})
