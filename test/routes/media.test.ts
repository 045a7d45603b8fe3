// Images and audio in results, over real HTTP: a tool returns a real PNG and a WAV beside its text;
// the envelope names them (no base64 in it), GET /results/:id/media/:n serves the exact bytes with
// their type to the key that made the call and to no other, each batch dialect carries them where
// its format can (the answers assigned to the SDKs' own input types, so tsc checks them), and media
// a tool gets wrong (type, base64, size) are dropped with a note, never a failed call.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type Anthropic from '@anthropic-ai/sdk'
import type { FunctionResponse, Part } from '@google/genai'
import type OpenAI from 'openai'
import type { Static } from 'typebox'
import { buildApp } from '../../src/app/app.ts'
import { loadConfig } from '../../src/config/load.ts'
import type { AnthropicAnswer } from '../../src/dispatch/dialects/anthropic.ts'
import type { ChatAnswer } from '../../src/dispatch/dialects/chat.ts'
import type { GeminiAnswer } from '../../src/dispatch/dialects/gemini.ts'
import type { ResponsesAnswer } from '../../src/dispatch/dialects/responses.ts'
import type { Envelope } from '../../src/dispatch/call/outcome.ts'
import { createLogger } from '../../src/app/logger.ts'
import { mediaResult } from '../../src/registry/tool-result.ts'
import { captureLogger } from '../helpers/logger.ts'
import { tinyPng, tinyWav } from '../helpers/media.ts'
import { fixtureTool } from '../helpers/tools.ts'

const KEYS = { alice: 'alice-key-3c8e1f0a7d', bob: 'bob-key-6b2d9e4c1a' }
const PNG = tinyPng()
const WAV = tinyWav()

type EnvelopeBody = Static<typeof Envelope>

/** A listening gateway with keys alice and bob, and tools `picture` (a PNG and a WAV), `bad` (media mostly wrong), `echo`. */
async function gateway (t: TestContext, env: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-media-'))
  const sha = (key: string): string => createHash('sha256').update(key).digest('hex')
  await writeFile(join(dir, 'gateway.yaml'), ['auth:', '  keys:',
    `    - { name: alice, sha256: ${sha(KEYS.alice)} }`, `    - { name: bob, sha256: ${sha(KEYS.bob)} }`, ''].join('\n'))
  await mkdir(join(dir, 'none'))
  const config = await loadConfig({ cwd: dir, env: { GATEWAY_CONFIG: 'gateway.yaml', TOOLS_DIR: join(dir, 'none'), WORKSPACE_ROOT: join(dir, 'workspace'), ...env } })
  const app = await buildApp(config, { logger: createLogger(config, captureLogger('info').stream) })
  app.gateway.registry.register(fixtureTool('picture', {
    handler: () => mediaResult({ caption: 'a gradient and a tone' }, [
      { kind: 'image', mimeType: 'image/png', data: PNG.toString('base64') },
      { kind: 'audio', mimeType: 'audio/wav', data: WAV.toString('base64') }
    ])
  }))
  app.gateway.registry.register(fixtureTool('echo'))
  app.gateway.registry.register(fixtureTool('bad', {
    handler: () => mediaResult('see attached', [
      { kind: 'image', mimeType: 'image/bmp', data: PNG.toString('base64') },
      { kind: 'image', mimeType: 'image/png', data: 'not base64!' },
      { kind: 'video', mimeType: 'video/mp4', data: 'AAAA' } as never,
      { kind: 'image', mimeType: 'image/png', data: PNG.toString('base64') }
    ])
  }))
  t.after(async () => {
    await app.close()
    await rm(dir, { recursive: true, force: true })
  })
  return await app.listen({ host: '127.0.0.1', port: 0 })
}

function request (base: string, key: keyof typeof KEYS | undefined, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = key === undefined ? {} : { authorization: `Bearer ${KEYS[key]}` }
  if (body !== undefined) headers['content-type'] = 'application/json'
  return fetch(`${base}${path}`, { method: body === undefined ? 'GET' : 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) })
}

test('the envelope names the media, and the key that made the call fetches their exact bytes with their type', async (t) => {
  const base = await gateway(t)
  const res = await request(base, 'alice', '/dispatch/picture', {})
  assert.equal(res.status, 200)
  const raw = await res.text()
  const envelope = JSON.parse(raw) as EnvelopeBody
  assert.equal(envelope.status, 'ok')
  assert.ok(!raw.includes(PNG.toString('base64').slice(0, 40)), 'no base64 in the envelope')
  assert.ok(envelope.resultId !== undefined)
  const urls = [`/results/${envelope.resultId}/media/0`, `/results/${envelope.resultId}/media/1`]
  assert.deepEqual(envelope.media, [
    { kind: 'image', mimeType: 'image/png', bytes: PNG.length, url: urls[0] },
    { kind: 'audio', mimeType: 'audio/wav', bytes: WAV.length, url: urls[1] }
  ])
  assert.equal(envelope.content, '{"caption":"a gradient and a tone"}\n' +
    `[image 0: image/png, ${PNG.length} bytes; GET ${urls[0]} fetches it]\n[audio 1: audio/wav, ${WAV.length} bytes; GET ${urls[1]} fetches it]`)

  for (const [url, bytes, type] of [[urls[0], PNG, 'image/png'], [urls[1], WAV, 'audio/wav']] as const) {
    const media = await request(base, 'alice', url)
    assert.equal(media.status, 200)
    assert.equal(media.headers.get('content-type'), type)
    assert.equal(media.headers.get('x-content-type-options'), 'nosniff')
    assert.deepEqual(Buffer.from(await media.arrayBuffer()), bytes)
  }
  // The text is kept too, under the same id.
  const text = await (await request(base, 'alice', `/results/${envelope.resultId}`)).json() as { content: string }
  assert.equal(text.content, '{"caption":"a gradient and a tone"}')

  // Another key, no key, an item past the last, an unknown id.
  const bob = await request(base, 'bob', urls[0])
  assert.equal(bob.status, 404)
  assert.equal((await bob.json() as { code: string }).code, 'GW_ERR_RESULT_NOT_FOUND')
  assert.equal((await request(base, undefined, urls[0])).status, 401)
  assert.equal((await request(base, 'alice', `/results/${envelope.resultId}/media/2`)).status, 404)
  assert.equal((await request(base, 'alice', '/results/res_unknown/media/0')).status, 404)
  assert.equal((await request(base, 'alice', `/results/${envelope.resultId}/media/x`)).status, 400)
})

test('an Idempotency-Key keeps the envelope, not the media\'s base64: a retry is replayed within a budget the bytes would overflow', async (t) => {
  // The WAV alone is ~2.2 KB of base64 (4.4 KB as kept); the envelope naming both items is far less.
  const base = await gateway(t, { IDEMPOTENCY_MAX_BYTES_PER_KEY: '3000' })
  const call = async (): Promise<Response> => await fetch(`${base}/dispatch/picture`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.alice}`, 'content-type': 'application/json', 'idempotency-key': 'picture-1' },
    body: '{}'
  })
  const first = await call()
  const body = await first.text()
  assert.equal(first.status, 200)
  const retry = await call()
  assert.equal(retry.headers.get('idempotent-replayed'), 'true', 'the answer was kept')
  assert.equal(await retry.text(), body)
})

test('media a tool gets wrong are dropped with a note saying why; the rest of the call goes on', async (t) => {
  const base = await gateway(t)
  const envelope = await (await request(base, 'alice', '/dispatch/bad', {})).json() as EnvelopeBody
  assert.equal(envelope.status, 'ok')
  assert.equal(envelope.media?.length, 1, 'only the valid PNG is carried')
  const lines = envelope.content.split('\n')
  assert.equal(lines[0], 'see attached')
  assert.match(lines[1], /^\[image dropped: "image\/bmp" is not an accepted image type \(accepted: image\/png, image\/jpeg, image\/gif, image\/webp\)\]$/)
  assert.equal(lines[2], '[image dropped: data is not valid base64]')
  assert.match(lines[3], /^\[media item dropped: kind must be image or audio \(got "video"\)\]$/)
  assert.match(lines[4], /^\[image 0: image\/png, \d+ bytes; GET \/results\/res_[\w-]+\/media\/0 fetches it\]$/)
})

test('MAX_MEDIA_BYTES caps the media of one call: the item past it is dropped, named in the text', async (t) => {
  const base = await gateway(t, { MAX_MEDIA_BYTES: String(PNG.length + 10) })
  const envelope = await (await request(base, 'alice', '/dispatch/picture', {})).json() as EnvelopeBody
  assert.equal(envelope.status, 'ok')
  assert.deepEqual(envelope.media?.map((item) => item.mimeType), ['image/png'])
  assert.match(envelope.content, new RegExp(`\\[audio dropped: ${WAV.length} bytes is over the 10 bytes of media this call may still carry \\(dispatch.maxMediaBytes\\)\\]`))
})

test('a cut text keeps its media note whole after the truncation notice, both reading from the same kept result', async (t) => {
  const base = await gateway(t)
  const res = await fetch(`${base}/dispatch/picture`, {
    method: 'POST', headers: { authorization: `Bearer ${KEYS.alice}`, 'content-type': 'application/json', 'x-max-result-chars': '20' }, body: '{}'
  })
  const envelope = await res.json() as EnvelopeBody
  assert.equal(envelope.truncated, true)
  assert.ok(envelope.resultId !== undefined)
  assert.match(envelope.content, new RegExp(`GET /results/${envelope.resultId}\\?offset=\\d+ reads them`))
  assert.ok(envelope.content.endsWith(`[audio 1: audio/wav, ${WAV.length} bytes; GET /results/${envelope.resultId}/media/1 fetches it]`))
})

test('media over the result store\'s per-result cap are carried but not kept: no url, and the note says so', async (t) => {
  const base = await gateway(t, { RESULTS_MAX_RESULT_BYTES: String(PNG.length) })
  const envelope = await (await request(base, 'alice', '/dispatch/picture', {})).json() as EnvelopeBody
  assert.equal(envelope.resultId, undefined)
  assert.deepEqual(envelope.media, [
    { kind: 'image', mimeType: 'image/png', bytes: PNG.length },
    { kind: 'audio', mimeType: 'audio/wav', bytes: WAV.length }
  ])
  assert.match(envelope.content, /\[image 0: image\/png, \d+ bytes; not kept by the gateway\]/)
})

test('each batch dialect carries the media where its format can, else names them in the text', async (t) => {
  const base = await gateway(t)
  const png = PNG.toString('base64')
  const wav = WAV.toString('base64')
  const batch = async <T>(body: unknown): Promise<T> => {
    const res = await request(base, 'alice', '/dispatch', body)
    assert.equal(res.status, 200)
    return await res.json() as T
  }

  // Chat: text only; the note names both items and where to fetch them.
  const chat = await batch<Static<typeof ChatAnswer>>({ tool_calls: [{ id: 'c1', type: 'function', function: { name: 'picture', arguments: '{}' } }] })
  const message: OpenAI.Chat.ChatCompletionToolMessageParam = chat.messages[0]
  assert.match(String(message.content), /\[image 0: image\/png, \d+ bytes; GET \/results\/res_[\w-]+\/media\/0 fetches it\]\n\[audio 1: audio\/wav/)

  // Responses: input_text then input_image (a data URL); the audio stays a note.
  const responses = await batch<Static<typeof ResponsesAnswer>>([{ type: 'function_call', call_id: 'r1', name: 'picture', arguments: '{}' }])
  const input: OpenAI.Responses.ResponseInputItem[] = responses.items
  const output = responses.items[0].output
  assert.ok(Array.isArray(output))
  const items: OpenAI.Responses.ResponseFunctionCallOutputItemList = output
  assert.deepEqual(items.map((item) => item.type), ['input_text', 'input_image'])
  assert.equal((items[1] as OpenAI.Responses.ResponseInputImageContent).image_url, `data:image/png;base64,${png}`)
  assert.match((items[0] as OpenAI.Responses.ResponseInputTextContent).text, /\[audio 1: audio\/wav, \d+ bytes; GET \/results\//)
  assert.equal(input.length, 1)

  // Anthropic: a text block then a base64 image block; audio is not taken by Anthropic: a note.
  const anthropic = await batch<Static<typeof AnthropicAnswer>>([{ type: 'tool_use', id: 'toolu_1', name: 'picture', input: {} }])
  const blocks: Anthropic.Messages.ToolResultBlockParam[] = anthropic.content
  const next: Anthropic.Messages.MessageParam = { role: 'user', content: blocks }
  assert.equal(next.content.length, 1)
  const content = blocks[0].content
  assert.ok(Array.isArray(content))
  assert.equal(content.length, 2)
  assert.equal(content[0].type, 'text')
  assert.match((content[0] as Anthropic.Messages.TextBlockParam).text, /\[audio 1: audio\/wav, \d+ bytes; GET \/results\//)
  assert.deepEqual(content[1], { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } })
  assert.equal(blocks[0].is_error, false)

  // Gemini: the FunctionResponse's parts carry both, as inlineData.
  const gemini = await batch<Static<typeof GeminiAnswer>>([{ functionCall: { id: 'g1', name: 'picture', args: {} } }])
  const parts: Part[] = gemini.parts
  const response: FunctionResponse | undefined = parts[0].functionResponse
  assert.deepEqual(response?.parts, [
    { inlineData: { mimeType: 'image/png', data: png } },
    { inlineData: { mimeType: 'audio/wav', data: wav } }
  ])
  assert.match(String(response?.response?.output), /^\{"caption":"a gradient and a tone"\}\n\[image 0/)
})

test('a result without media answers as before in every dialect: a plain string', async (t) => {
  const base = await gateway(t)
  const anthropic = await (await request(base, 'alice', '/dispatch', [{ type: 'tool_use', id: 'toolu_1', name: 'echo', input: { text: 'hi' } }])).json() as Static<typeof AnthropicAnswer>
  assert.equal(anthropic.content[0].content, '{"echoed":"hi"}')
  const responses = await (await request(base, 'alice', '/dispatch', [{ type: 'function_call', call_id: 'r1', name: 'echo', arguments: '{}' }])).json() as Static<typeof ResponsesAnswer>
  assert.equal(responses.items[0].output, '{"echoed":null}')
  const gemini = await (await request(base, 'alice', '/dispatch', [{ functionCall: { name: 'echo', args: {} } }])).json() as Static<typeof GeminiAnswer>
  assert.deepEqual(gemini.parts[0].functionResponse, { name: 'echo', response: { output: '{"echoed":null}' } })
  const envelope = await (await request(base, 'alice', '/dispatch/echo', {})).json() as EnvelopeBody
  assert.equal(envelope.media, undefined)
  assert.equal(envelope.resultId, undefined)
})
