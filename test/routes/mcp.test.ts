// MCP servers configured in the config file: started with the gateway, their tools served over
// HTTP, their state shown to operators in /tools and /toolsets, a server that is down reported
// without holding the others, and every child stopped with the app.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { buildTestApp } from '../helpers/app.ts'

const everything = resolve(import.meta.dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js')

test('MCP tools over HTTP, with server states and provenance', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-mcp-http-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'gw.yaml'), [
    'mcpServers:',
    '  everything:',
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [${JSON.stringify(everything)}, stdio]`,
    '  broken:',
    `    command: ${JSON.stringify(process.execPath)}`,
    '    args: ["-e", "process.exit(3)"]',
    '    connectTimeoutMs: 3000',
    '  off:',
    '    url: http://127.0.0.1:9/mcp',
    '    enabled: false',
    ''
  ].join('\n'))
  const { app } = await buildTestApp(t, { GATEWAY_CONFIG: join(dir, 'gw.yaml') })

  const definitions = (await app.inject('/definitions?toolsets=everything')).json() as Array<{ function: { name: string } }>
  assert.ok(definitions.some((d) => d.function.name === 'mcp__everything__echo'), 'the alias "everything" selects the server\'s tools')
  const echo = await app.inject({ method: 'POST', url: '/dispatch/mcp__everything__echo', payload: { message: 'héllo over HTTP' } })
  assert.equal(echo.statusCode, 200, echo.body)
  assert.match(echo.json().content, /héllo over HTTP/)
  const invalid = await app.inject({ method: 'POST', url: '/dispatch/mcp__everything__echo', payload: { message: 42 } })
  assert.equal(invalid.statusCode, 400, 'arguments are validated before the server sees them')

  const tools = (await app.inject('/tools')).json()
  const states = new Map(tools.mcpServers.map((s: { server: string, state: string }) => [s.server, s]))
  assert.equal((states.get('everything') as { state: string }).state, 'connected')
  assert.notEqual((states.get('broken') as { state: string }).state, 'connected')
  assert.equal((states.get('off') as { state: string }).state, 'disabled')
  const echoRow = tools.tools.find((tool: { name: string }) => tool.name === 'mcp__everything__echo')
  assert.deepEqual(echoRow.origin, { kind: 'mcp', server: 'everything' })

  const toolsets = new Map((await app.inject('/toolsets')).json().toolsets.map((ts: { name: string }) => [ts.name, ts]))
  const ok = toolsets.get('mcp-everything') as { aliases: string[], mcpServer: { state: string }, available: boolean }
  assert.deepEqual(ok.aliases, ['everything'])
  assert.equal(ok.mcpServer.state, 'connected')
  assert.equal(ok.available, true)
  const down = toolsets.get('mcp-broken') as { available: boolean, reason: string }
  assert.equal(down.available, false)
  assert.match(down.reason, /MCP server "broken" is/)
})
