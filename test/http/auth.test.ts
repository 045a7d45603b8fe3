// API keys over HTTP: 401 for missing, wrong or malformed keys (JSON, and the envelope on dispatch),
// open health routes, per-key toolsets that hide everything else (404 exactly like an unknown
// tool), constant-time comparison against every key, and keys that never reach the log.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import crypto, { createHash } from 'node:crypto'
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { syncBuiltinESMExports } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../src/app/app.ts'
import { loadConfig } from '../../src/config/load.ts'
import { createAuthenticator } from '../../src/http/auth.ts'
import { createLogger } from '../../src/app/logger.ts'
import { captureLogger, type CapturedLogger } from '../helpers/logger.ts'
import { fixtureTool } from '../helpers/tools.ts'

// Distinctive strings, so a search of the log text cannot match anything else.
const FULL_KEY = 'full-key-7b1f0c2e9d4a'
const LIMITED_KEY = 'limited-key-5e8a3d6c1b0f'
const ENV_KEY = 'env-key-3c9e2a7f4d1b'
const WRONG_KEY = 'wrong-key-9f8e7d6c5b4a'

function sha256 (text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

interface TestContext { after: (fn: () => Promise<void> | void) => void }

interface AuthApp {
  app: FastifyInstance
  log: CapturedLogger
  calls: string[]
}

/**
 * An app with three keys: `full` (digest, every toolset), `limited` (digest, toolset `x` only) and
 * `robot` (read from GATEWAY_TEST_KEY, toolset `x`). Tools: alpha in `x`, beta in `y`.
 */
async function authApp (t: TestContext, level = 'silent'): Promise<AuthApp> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-auth-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await mkdir(join(dir, 'tools'))
  await writeFile(join(dir, 'gateway.yaml'), [
    'auth:',
    '  keys:',
    `    - { name: full, sha256: ${sha256(FULL_KEY)} }`,
    `    - { name: limited, sha256: ${sha256(LIMITED_KEY)}, toolsets: [x] }`,
    '    - { name: robot, env: GATEWAY_TEST_KEY, toolsets: [x] }',
    ''
  ].join('\n'))
  const env = { GATEWAY_TEST_KEY: ENV_KEY }
  const config = await loadConfig({
    cwd: dir,
    // These tests make many failed attempts from one address on purpose; the limit on guessing has
    // its own tests (auth-failures.test.ts).
    env: { ...env, GATEWAY_CONFIG: 'gateway.yaml', TOOLS_DIR: join(dir, 'tools'), WORKSPACE_ROOT: join(dir, 'workspace'), LOG_LEVEL: level, AUTH_FAILURE_MAX: '1000' }
  })
  const log = captureLogger()
  const app = await buildApp(config, { logger: createLogger(config, log.stream), env })
  t.after(() => app.close())
  const calls: string[] = []
  for (const [name, toolset] of [['alpha', 'x'], ['beta', 'y']]) {
    app.gateway.registry.register(fixtureTool(name, {
      toolset,
      handler: async (args) => {
        calls.push(name)
        return JSON.stringify({ ran: name, text: args.text ?? null })
      }
    }))
  }
  return { app, log, calls }
}

function bearer (key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` }
}

function dispatch (app: FastifyInstance, name: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url: `/dispatch/${name}`, headers: { 'x-tool-call-id': 'call_1', ...headers }, payload: { text: 'hi' } })
}

function definitionNames (response: LightMyRequestResponse): string[] {
  return (response.json() as Array<{ function: { name: string } }>).map((d) => d.function.name)
}

const BAD_AUTHORIZATIONS: Array<[string, Record<string, string>]> = [
  ['missing', {}],
  ['wrong key', bearer(WRONG_KEY)],
  ['empty bearer', { authorization: 'Bearer ' }],
  ['another scheme', { authorization: `Basic ${Buffer.from(`user:${FULL_KEY}`).toString('base64')}` }],
  ['no scheme', { authorization: FULL_KEY }],
  ['two tokens', { authorization: `Bearer ${FULL_KEY} extra` }],
  ['the digest instead of the key', bearer(sha256(FULL_KEY))]
]

test('without a valid key every guarded route answers 401 GW_ERR_UNAUTHORIZED as JSON', async (t) => {
  const { app } = await authApp(t)
  for (const url of ['/definitions', '/tools', '/tools/alpha', '/toolsets', '/documentation/json', '/no-such-route']) {
    for (const [label, headers] of BAD_AUTHORIZATIONS) {
      const response = await app.inject({ method: 'GET', url, headers })
      assert.equal(response.statusCode, 401, `${url} ${label}`)
      assert.match(String(response.headers['content-type']), /^application\/json/)
      assert.equal(response.headers['www-authenticate'], 'Bearer realm="tool-gateway"')
      const body = response.json()
      assert.equal(body.code, 'GW_ERR_UNAUTHORIZED', `${url} ${label}`)
      assert.equal(body.statusCode, 401)
      assert.match(body.message, /Authorization: Bearer/)
    }
  }
})

test('on /dispatch/:name a 401 is the envelope, and the tool does not run', async (t) => {
  const { app, calls } = await authApp(t)
  for (const [label, headers] of BAD_AUTHORIZATIONS) {
    const response = await dispatch(app, 'alpha', headers)
    assert.equal(response.statusCode, 401, label)
    const body = response.json()
    assert.equal(body.tool, 'alpha')
    assert.equal(body.callId, 'call_1')
    assert.equal(body.ok, false)
    assert.equal(body.error.code, 'GW_ERR_UNAUTHORIZED')
    assert.deepEqual(JSON.parse(body.content), { error: body.error.message })
  }
  const batch = await app.inject({
    method: 'POST',
    url: '/dispatch',
    payload: { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'alpha', arguments: '{}' } }] }
  })
  assert.equal(batch.statusCode, 401)
  assert.equal(batch.json().error.code, 'GW_ERR_UNAUTHORIZED')
  assert.deepEqual(calls, [])
})

test('the right key is let in, whether configured as a digest or read from an environment variable', async (t) => {
  const { app, calls } = await authApp(t)
  for (const key of [FULL_KEY, LIMITED_KEY, ENV_KEY]) {
    assert.equal((await app.inject({ method: 'GET', url: '/definitions', headers: bearer(key) })).statusCode, 200)
    const response = await dispatch(app, 'alpha', bearer(key))
    assert.equal(response.statusCode, 200)
    assert.deepEqual(JSON.parse(response.json().content), { ran: 'alpha', text: 'hi' })
  }
  // The scheme is case-insensitive, as RFC 7235 says.
  assert.equal((await app.inject({ method: 'GET', url: '/tools', headers: { authorization: `bearer ${FULL_KEY}` } })).statusCode, 200)
  assert.deepEqual(calls, ['alpha', 'alpha', 'alpha'])
})

test('/healthz and /readyz are open without a key', async (t) => {
  const { app } = await authApp(t)
  for (const url of ['/healthz', '/readyz']) {
    for (const headers of [{}, bearer(WRONG_KEY)]) {
      const response = await app.inject({ method: 'GET', url, headers })
      assert.equal(response.statusCode, 200, url)
    }
  }
})

test('a key limited to toolset x sees only x in /definitions, /tools and /toolsets', async (t) => {
  const { app } = await authApp(t)
  for (const key of [LIMITED_KEY, ENV_KEY]) {
    const definitions = await app.inject({ method: 'GET', url: '/definitions', headers: bearer(key) })
    assert.deepEqual(definitionNames(definitions), ['alpha'])
    const all = await app.inject({ method: 'GET', url: '/definitions?toolsets=all', headers: bearer(key) })
    assert.deepEqual(definitionNames(all), ['alpha'])

    const tools = (await app.inject({ method: 'GET', url: '/tools', headers: bearer(key) })).json()
    assert.deepEqual(tools.tools.map((tool: { name: string }) => tool.name), ['alpha'])
    assert.deepEqual(tools.summary, { total: 1, available: 1, unavailable: 0 })
    const byTag = (await app.inject({ method: 'GET', url: '/tools?toolset=y', headers: bearer(key) })).json()
    assert.deepEqual(byTag.tools, [])

    const toolsets = (await app.inject({ method: 'GET', url: '/toolsets', headers: bearer(key) })).json()
    assert.deepEqual(toolsets.toolsets.map((set: { name: string, tools: string[] }) => [set.name, set.tools]), [['x', ['alpha']]])
  }
  // The unrestricted key sees both.
  assert.deepEqual(definitionNames(await app.inject({ method: 'GET', url: '/definitions', headers: bearer(FULL_KEY) })), ['alpha', 'beta'])
  const toolsets = (await app.inject({ method: 'GET', url: '/toolsets', headers: bearer(FULL_KEY) })).json()
  const names = toolsets.toolsets.map((set: { name: string }) => set.name)
  assert.ok(names.includes('x') && names.includes('y'), names.join(', '))
})

/** The envelope without what differs between two calls (duration). */
function comparable (response: LightMyRequestResponse): Record<string, unknown> {
  return { status: response.statusCode, body: { ...response.json<Record<string, unknown>>(), durationMs: 0 } }
}

test('dispatching a tool outside the key\'s toolsets is a 404 indistinguishable from an unknown tool', async (t) => {
  const { app, calls } = await authApp(t)
  const hidden = await dispatch(app, 'beta', bearer(LIMITED_KEY))
  assert.deepEqual(comparable(hidden), {
    status: 404,
    body: {
      tool: 'beta',
      callId: 'call_1',
      ok: false,
      status: 'not_found',
      content: '{"error":"Unknown tool: beta"}',
      truncated: false,
      originalLength: '{"error":"Unknown tool: beta"}'.length,
      durationMs: 0,
      error: { code: 'GW_ERR_TOOL_NOT_FOUND', message: 'Unknown tool: beta' }
    }
  })
  // A truly unknown tool (a name as long, so lengths match), asked by the unrestricted key: the same answer.
  const unknown = await dispatch(app, 'zeta', bearer(FULL_KEY))
  assert.deepEqual(comparable(unknown), JSON.parse(JSON.stringify(comparable(hidden)).replaceAll('beta', 'zeta')))
  assert.deepEqual(Object.keys(hidden.headers).sort(), Object.keys(unknown.headers).sort())

  // In a batch too, each hidden call answers as unknown.
  const batch = await app.inject({
    method: 'POST',
    url: '/dispatch',
    headers: bearer(LIMITED_KEY),
    payload: { tool_calls: [{ id: 'c1', function: { name: 'beta', arguments: '{}' } }, { id: 'c2', function: { name: 'alpha', arguments: '{}' } }] }
  })
  assert.equal(batch.statusCode, 200)
  assert.deepEqual(batch.json().messages, [
    { role: 'tool', tool_call_id: 'c1', content: '{"error":"Unknown tool: beta"}' },
    { role: 'tool', tool_call_id: 'c2', content: '{"ran":"alpha","text":null}' }
  ])
  assert.deepEqual(calls, ['alpha'])
})

test('GET /tools/:name of a tool outside the key\'s toolsets is the same 404 as an unknown tool', async (t) => {
  const { app } = await authApp(t)
  const hidden = await app.inject({ method: 'GET', url: '/tools/beta', headers: bearer(LIMITED_KEY) })
  const unknown = await app.inject({ method: 'GET', url: '/tools/gamma', headers: bearer(LIMITED_KEY) })
  assert.equal(hidden.statusCode, 404)
  assert.deepEqual(hidden.json(), { statusCode: 404, code: 'GW_ERR_TOOL_NOT_FOUND', error: 'Not Found', message: 'Unknown tool: beta' })
  assert.equal(unknown.statusCode, 404)
  assert.deepEqual(unknown.json(), { ...hidden.json(), message: 'Unknown tool: gamma' })
  // And the tool is there for a key allowed to see it.
  assert.equal((await app.inject({ method: 'GET', url: '/tools/beta', headers: bearer(FULL_KEY) })).statusCode, 200)
})

test('a limited key cannot learn which other toolsets exist from /definitions?toolsets=', async (t) => {
  const { app } = await authApp(t)
  const existing = await app.inject({ method: 'GET', url: '/definitions?toolsets=y', headers: bearer(LIMITED_KEY) })
  const absent = await app.inject({ method: 'GET', url: '/definitions?toolsets=zzz', headers: bearer(LIMITED_KEY) })
  assert.equal(absent.statusCode, 400)
  assert.equal(existing.statusCode, 400)
  assert.deepEqual(existing.json(), JSON.parse(absent.body.replaceAll('zzz', 'y')))
  assert.doesNotMatch(absent.body, /\bbeta\b|"y"|\by\b, /)
  assert.match(absent.json().message, /valid: x, all/)
  // Its own toolset works, and so does the unrestricted key's view of y.
  assert.deepEqual(definitionNames(await app.inject({ method: 'GET', url: '/definitions?toolsets=x', headers: bearer(LIMITED_KEY) })), ['alpha'])
  assert.deepEqual(definitionNames(await app.inject({ method: 'GET', url: '/definitions?toolsets=y', headers: bearer(FULL_KEY) })), ['beta'])
})

test('a key whose toolset has no tools right now sees nothing, and requests still succeed', async (t) => {
  const { app } = await authApp(t)
  // The only tool of x goes (an MCP server restarting, say): x is no toolset at the moment.
  app.gateway.registry.deregister('alpha')
  const definitions = await app.inject({ method: 'GET', url: '/definitions', headers: bearer(LIMITED_KEY) })
  assert.equal(definitions.statusCode, 200)
  assert.deepEqual(definitions.json(), [])
  const tools = await app.inject({ method: 'GET', url: '/tools', headers: bearer(LIMITED_KEY) })
  assert.equal(tools.statusCode, 200)
  assert.deepEqual(tools.json().tools, [])
  const call = await dispatch(app, 'beta', bearer(LIMITED_KEY))
  assert.equal(call.statusCode, 404)
  assert.equal(call.json().content, '{"error":"Unknown tool: beta"}')
})

test('the second of two keys matching lets the caller in with that key\'s toolsets', async (t) => {
  const { app } = await authApp(t)
  // `limited` is configured after `full`: the answer must be the limited view, not the first key's.
  assert.deepEqual(definitionNames(await app.inject({ method: 'GET', url: '/definitions', headers: bearer(LIMITED_KEY) })), ['alpha'])
  assert.deepEqual(definitionNames(await app.inject({ method: 'GET', url: '/definitions', headers: bearer(FULL_KEY) })), ['alpha', 'beta'])
})

test('a presented key is compared in constant time with every configured key, wherever it matches', (t) => {
  const compare = t.mock.method(crypto, 'timingSafeEqual')
  // The module imported the function by name: make the ESM binding see the spy.
  syncBuiltinESMExports()
  t.after(() => {
    compare.mock.restore()
    syncBuiltinESMExports()
  })
  const keys = ['k-one', 'k-two', 'k-three'].map((key, i) => ({ name: `key${i}`, sha256: sha256(key) }))
  const authenticator = createAuthenticator({ auth: { keys, allowOpen: false } } as Parameters<typeof createAuthenticator>[0], {})
  for (const [presented, expected] of [['k-one', 'key0'], ['k-two', 'key1'], ['k-three', 'key2'], ['nope', undefined]] as const) {
    compare.mock.resetCalls()
    assert.equal(authenticator.authenticate(`Bearer ${presented}`)?.name, expected)
    assert.equal(compare.mock.callCount(), keys.length, `${presented}: compared with ${compare.mock.callCount()} of ${keys.length} keys`)
  }
})

test('keys never appear in the log, even at trace level and when wrong', async (t) => {
  const { app, log } = await authApp(t, 'trace')
  for (const headers of [bearer(FULL_KEY), bearer(LIMITED_KEY), bearer(ENV_KEY), bearer(WRONG_KEY), { authorization: `Basic ${FULL_KEY}` }, {}]) {
    for (const url of ['/definitions', '/tools', '/toolsets', '/tools/alpha', '/healthz', '/nope']) {
      await app.inject({ method: 'GET', url, headers })
    }
    await dispatch(app, 'alpha', headers)
    await dispatch(app, 'beta', headers)
  }
  const text = log.text()
  // The log did record these requests, so its silence about keys means something.
  assert.ok(log.lines().filter((line) => line.msg === 'tool call').length >= 6, 'expected tool call lines')
  assert.ok(text.includes('request refused'), 'expected the 401s to be logged')
  for (const secret of [FULL_KEY, LIMITED_KEY, ENV_KEY, WRONG_KEY, Buffer.from(FULL_KEY).toString('base64')]) {
    assert.ok(!text.includes(secret), `the log contains ${secret}`)
  }
  // Only the help text of the 401 may follow "Bearer".
  assert.doesNotMatch(text, /Bearer (?!<key>)/)
})
