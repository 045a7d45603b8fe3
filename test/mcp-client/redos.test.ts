// A pattern in an MCP server's schema is evaluated in linear time: a catastrophic one such as
// ^(a+)+$ against a long 'aaaa…b' answers at once and blocks nothing else. The gateway runs as a
// child so that, were its event loop frozen, this test would still see it (and kill it).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { startGatewayProcess } from './helpers/gateway-process.ts'
import { writeScriptedServer } from './helpers/scripted-server.ts'

// Far beyond what a backtracking engine finishes: 2^40 paths before it gives up on the 'b'.
const EVIL = `${'a'.repeat(40)}b`
const BOUND_MS = 10_000

const TOOLS = [
  { name: 'word', inputSchema: { type: 'object', properties: { word: { type: 'string', pattern: '^(a+)+$' } }, required: ['word'] } },
  { name: 'keys', inputSchema: { type: 'object', patternProperties: { '^(a+)+$': { type: 'integer' } } } }
]

async function post (base: string, tool: string, body: unknown): Promise<Response> {
  return fetch(`${base}/dispatch/${tool}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(BOUND_MS)
  })
}

test('a catastrophic pattern in an MCP schema neither freezes the gateway nor lets a bad value through', async (t) => {
  const scripted = await writeScriptedServer(TOOLS)
  t.after(() => rm(scripted.dir, { recursive: true, force: true }))
  const configFile = join(scripted.dir, 'gw.json')
  await writeFile(configFile, JSON.stringify({ mcpServers: { raw: scripted.config } }))
  const gateway = await startGatewayProcess(t, scripted.dir, configFile)

  const calls = [
    post(gateway.base, 'mcp__raw__word', { word: EVIL }),
    post(gateway.base, 'mcp__raw__keys', { [EVIL]: 1, aaa: 'not an integer' })
  ]
  const health = await fetch(`${gateway.base}/healthz`, { signal: AbortSignal.timeout(BOUND_MS) })
  assert.equal(health.status, 200, 'another request is served meanwhile')

  const [word, keys] = await Promise.all(calls)
  assert.equal(word.status, 400, await word.clone().text())
  assert.match(((await word.json()) as { error: { message: string } }).error.message, /\/word: must match pattern/)
  assert.equal(keys.status, 400, await keys.clone().text())

  const good = await post(gateway.base, 'mcp__raw__word', { word: 'aaaa' })
  assert.equal(good.status, 200, await good.clone().text())
  assert.equal(((await good.json()) as { content: string }).content, '{"word":"aaaa"}')
})
