// Images and audio from MCP upstreams, end to end: a scripted server answers the content blocks it is
// given (a real PNG and WAV, and blocks a server gets wrong) and server-everything its tiny image;
// the gateway keeps them as media (envelope, GET /results/:id/media/:n) and hands them on to its own
// MCP clients (a real SDK client on /mcp) as ImageContent and AudioContent after the text.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client'
import type { Static } from 'typebox'
import type { Envelope } from '../../src/dispatch/call/outcome.ts'
import { buildTestApp } from '../helpers/app.ts'
import { tinyPng, tinyWav } from '../helpers/media.ts'
import { EVERYTHING_SERVER } from './helpers/harness.ts'
import { writeScriptedServer } from './helpers/scripted-server.ts'

const PNG = tinyPng(8)
const WAV = tinyWav()
const CONTENT_TOOL = { name: 'content', inputSchema: { type: 'object', properties: { content: { type: 'array' } } } }

async function gateway (t: TestContext): Promise<{ base: string, client: Client }> {
  const scripted = await writeScriptedServer([CONTENT_TOOL])
  t.after(() => rm(scripted.dir, { recursive: true, force: true }))
  const configFile = join(scripted.dir, 'gw.json')
  await writeFile(configFile, JSON.stringify({
    mcpServers: { raw: scripted.config, everything: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] } }
  }))
  const { app } = await buildTestApp(t, { GATEWAY_CONFIG: configFile })
  const base = await app.listen({ host: '127.0.0.1', port: 0 })
  const client = new Client({ name: 'media-test', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
  t.after(() => client.close())
  return { base, client }
}

test('an upstream\'s image and audio reach the envelope, the media route and MCP clients as media', async (t) => {
  const { base, client } = await gateway(t)
  const content = [
    { type: 'text', text: 'here they are' },
    { type: 'image', mimeType: 'image/png', data: PNG.toString('base64') },
    { type: 'audio', mimeType: 'audio/wav', data: WAV.toString('base64') }
  ]
  const res = await fetch(`${base}/dispatch/mcp__raw__content`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content }) })
  const envelope = await res.json() as Static<typeof Envelope>
  assert.equal(envelope.status, 'ok')
  assert.deepEqual(envelope.media?.map(({ kind, mimeType, bytes }) => ({ kind, mimeType, bytes })), [
    { kind: 'image', mimeType: 'image/png', bytes: PNG.length },
    { kind: 'audio', mimeType: 'audio/wav', bytes: WAV.length }
  ])
  assert.match(envelope.content, /^here they are\n\[image 0: image\/png, \d+ bytes; GET \/results\/res_[\w-]+\/media\/0 fetches it\]\n\[audio 1: audio\/wav/)
  const audio = await fetch(`${base}${envelope.media?.[1].url}`)
  assert.equal(audio.headers.get('content-type'), 'audio/wav')
  assert.deepEqual(Buffer.from(await audio.arrayBuffer()), WAV)

  // Over /mcp: the text (with its note, for clients that show text only), then the items themselves.
  const result = await client.callTool({ name: 'mcp__raw__content', arguments: { content } }) as CallToolResult
  assert.equal(result.isError, false)
  const items: CallToolResult['content'] = result.content
  assert.deepEqual(items.map((item) => item.type), ['text', 'image', 'audio'])
  assert.deepEqual(items.slice(1), [
    { type: 'image', mimeType: 'image/png', data: PNG.toString('base64') },
    { type: 'audio', mimeType: 'audio/wav', data: WAV.toString('base64') }
  ])
})

test('server-everything\'s tiny image comes through /mcp as an ImageContent with the same bytes', async (t) => {
  const { base, client } = await gateway(t)
  const result = await client.callTool({ name: 'mcp__everything__get_tiny_image', arguments: {} }) as CallToolResult
  const image = result.content.find((item) => item.type === 'image')
  assert.ok(image?.type === 'image')
  assert.equal(image.mimeType, 'image/png')
  const bytes = Buffer.from(image.data, 'base64')
  assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG')
  // The same image over REST: fetched from the media route, byte for byte.
  const envelope = await (await fetch(`${base}/dispatch/mcp__everything__get_tiny_image`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json() as Static<typeof Envelope>
  const fetched = await fetch(`${base}${envelope.media?.[0].url}`)
  assert.equal(fetched.headers.get('content-type'), 'image/png')
  assert.deepEqual(Buffer.from(await fetched.arrayBuffer()), bytes)
})

test('a bad MIME type from an upstream is dropped with a note and the rest served; bad base64 fails the call, clearly', async (t) => {
  const { client } = await gateway(t)
  const result = await client.callTool({
    name: 'mcp__raw__content',
    arguments: {
      content: [
        { type: 'text', text: 'mixed' },
        { type: 'audio', mimeType: 'text/html', data: 'PGgxPmhpPC9oMT4=' },
        { type: 'image', mimeType: 'image/png', data: PNG.toString('base64') }
      ]
    }
  }) as CallToolResult
  assert.equal(result.isError, false, JSON.stringify(result.content))
  assert.deepEqual(result.content.map((item) => item.type), ['text', 'image'])
  const text = result.content[0].type === 'text' ? result.content[0].text : ''
  assert.match(text, /^mixed\n\[audio dropped: "text\/html" is not an accepted audio type \(accepted: audio\/wav, /)
  assert.match(text, /\n\[image 0: image\/png, \d+ bytes; GET \/results\/res_[\w-]+\/media\/0 fetches it\]$/)

  // The MCP client SDK itself refuses a result with bad base64 (the gateway's own check covers
  // tools that return media directly): the call is a tool error that says so, never a crash.
  const refused = await client.callTool({
    name: 'mcp__raw__content',
    arguments: { content: [{ type: 'text', text: 'x' }, { type: 'image', mimeType: 'image/png', data: '%%% not base64 %%%' }] }
  }) as CallToolResult
  assert.equal(refused.isError, true)
  assert.match(refused.content[0].type === 'text' ? refused.content[0].text : '', /Invalid Base64 string/)
})
