// mcp-remote 0.15.1, the stdio-to-HTTP bridge Claude Desktop users run, against the gateway's /mcp
// as such a user starts it: with an API key in --header, or with nothing, signing in through the
// identity provider it finds from the gateway's 401 (RFC 9728, RFC 8414, dynamic registration, PKCE;
// the browser's part played by the test: idp.authorize, then the GET to mcp-remote's own callback).
// The MCP is spoken by hand over its stdin and stdout, as a desktop host would, in the 2025-11-25
// handshake it passes through (--protocol legacy, its default) and bridged to 2026-07-28 (--protocol
// auto). AUTH_FAILURE_MAX is 1 throughout: one counted failure would lock the address.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type { Server } from 'node:http'
import { readdir } from 'node:fs/promises'
import { freePort } from '../helpers/free-port.ts'
import { browserOpened, mcpRemoteFolders, startMcpRemote, storedFiles, type McpRemote, type McpRemoteFolders } from '../helpers/mcp-remote.ts'
import { API_KEY, get, signInGateway, type SignInGateway } from './helpers.ts'

const MODES = ['legacy', 'auto'] as const
const CLIENT_VERSION = '2025-11-25'
// Each wait inside is bounded too (WAIT_MS); this bounds a test as a whole.
const BOUND = { timeout: 60_000 }

/** What the gateway's HTTP server received, seen beside Fastify on the raw server. */
interface Seen { method: string, path: string, auth: 'none' | 'key' | 'token', protocol: string | undefined, status?: number }

function recordRequests (server: Server): Seen[] {
  const seen: Seen[] = []
  server.on('request', (req, res) => {
    const authorization = req.headers.authorization
    const auth = authorization === undefined ? 'none' : authorization === `Bearer ${API_KEY}` ? 'key' : 'token'
    const header = req.headers['mcp-protocol-version']
    const entry: Seen = { method: req.method ?? '', path: req.url ?? '', auth, protocol: typeof header === 'string' ? header : undefined }
    seen.push(entry)
    // 'close' and not 'finish': a stream the client ends never finishes.
    res.once('close', () => { entry.status = res.statusCode })
  })
  return seen
}

async function gatewayFor (t: TestContext): Promise<{ gateway: SignInGateway, seen: Seen[] }> {
  const gateway = await signInGateway(t, { env: { AUTH_FAILURE_MAX: '1' } })
  return { gateway, seen: recordRequests(gateway.app.server) }
}

/** The desktop host's part: the handshake, then the tool names it is shown. */
async function handshake (remote: McpRemote): Promise<{ protocolVersion: string, tools: string[] }> {
  const init = await remote.request('initialize', { protocolVersion: CLIENT_VERSION, capabilities: {}, clientInfo: { name: 'desktop-host', version: '1' } })
  assert.equal(init.error, undefined, JSON.stringify(init.error))
  remote.notify('notifications/initialized')
  const list = await remote.request('tools/list')
  assert.equal(list.error, undefined, JSON.stringify(list.error))
  return { protocolVersion: init.result.protocolVersion, tools: (list.result.tools as Array<{ name: string }>).map((tool) => tool.name).sort() }
}

async function callReadNotes (remote: McpRemote, text: string): Promise<void> {
  const call = await remote.request('tools/call', { name: 'read_notes', arguments: { text } })
  assert.deepEqual(call.result?.content, [{ type: 'text', text: JSON.stringify({ echoed: text }) }], JSON.stringify(call))
  assert.equal(call.result.isError, false)
}

/** What reached /mcp once the bridge was up, in the protocol revision `mode` leads to. */
function assertProtocol (seen: readonly Seen[], mode: typeof MODES[number]): void {
  const versions = new Set(seen.filter((request) => request.path === '/mcp' && request.method === 'POST' && request.protocol !== undefined).map((request) => request.protocol))
  // legacy: the host's own handshake goes through; auto: mcp-remote finds 2026-07-28 by server/discover.
  assert.deepEqual([...versions], [mode === 'legacy' ? CLIENT_VERSION : '2026-07-28'])
}

/** Starts mcp-remote against the gateway's /mcp with `args` after the URL (--debug: its stderr says everything). */
function start (t: TestContext, gateway: SignInGateway, folders: McpRemoteFolders, args: string[]): McpRemote {
  return startMcpRemote(t, folders, [gateway.resource, ...args, '--debug'])
}

/** Waits until its stdio side is up, over the streamable HTTP transport. */
async function bridged (remote: McpRemote): Promise<McpRemote> {
  await remote.waitForStderr(/Local STDIO server running/, 'the stdio side')
  // Its default --transport http-first would fall back to SSE on a 404 or 405; it must not.
  assert.match(remote.stderr(), /Connected to remote server using StreamableHTTPClientTransport/)
  return remote
}

/** The authorization URL it prints for the user (and hands to a browser). */
async function authorizationUrl (remote: McpRemote): Promise<URL> {
  const [, printed] = await remote.waitForStderr(/Please authorize this client by visiting:\n(\S+)\n/, 'the authorization URL')
  return new URL(printed)
}

/** The browser's part: alice signs in and consents; then the redirect reaches mcp-remote's callback, which answers once it has the token. */
async function signInAlice (gateway: SignInGateway, authorization: URL): Promise<void> {
  const callback = await gateway.idp.authorize(authorization, { account: 'alice' })
  assert.equal(callback.searchParams.get('error'), null, callback.href)
  const landed = await fetch(callback, { signal: AbortSignal.timeout(10_000) })
  assert.equal(landed.status, 200, await landed.text())
}

for (const mode of MODES) {
  test(`--protocol ${mode}: mcp-remote with an API key in --header lists and calls the gateway's tools, and its probes count as no failed login`, BOUND, async (t) => {
    const { gateway, seen } = await gatewayFor(t)
    const folders = await mcpRemoteFolders(t)
    const args = ['--header', `Authorization: Bearer ${API_KEY}`, '--protocol', mode]
    const started = Date.now()
    const remote = await bridged(start(t, gateway, folders, args))
    const session = await handshake(remote)
    assert.equal(session.protocolVersion, CLIENT_VERSION)
    assert.deepEqual(session.tools, ['read_notes', 'run_shell', 'search_web'], 'the key is not limited to toolsets')
    await callReadNotes(remote, 'with a key')
    t.diagnostic(`started, listed and called in ${Date.now() - started} ms`)
    await remote.close()
    assert.deepEqual(await remote.exited, { code: 0, signal: null }, 'a closed stdin ends it cleanly, as a desktop host quitting does')
    assertProtocol(seen, mode)

    // It looks for OAuth even with a key (GET /mcp, the RFC 9728 document, the provider's metadata)
    // and never signs in: nothing was refused, the provider saw no registration or token request.
    assert.deepEqual(seen.filter((request) => request.status === 401 || request.status === 429), [])
    assert.ok(seen.some((request) => request.path === '/.well-known/oauth-protected-resource/mcp' && request.status === 200))
    assert.deepEqual(seen.filter((request) => request.path === '/mcp' && request.auth !== 'key'), [], 'every request to /mcp carries the key')
    assert.deepEqual(gateway.idp.requests.map((request) => request.path), ['/.well-known/oauth-authorization-server'])
    assert.deepEqual(await storedFiles(folders), ['debug.log'], 'no client, no token kept')

    // Within the same failure window a second start works as the first did.
    const again = await bridged(start(t, gateway, folders, args))
    assert.deepEqual((await handshake(again)).tools, ['read_notes', 'run_shell', 'search_web'])
    await again.close()
    // The window is armed: one wrong key now locks the address, a right one included.
    assert.equal((await get(gateway, '/definitions', 'wrong-key-0123456789')).status, 401)
    assert.equal((await get(gateway, '/definitions', API_KEY)).status, 429)
  })

  test(`--protocol ${mode}: mcp-remote with no credential signs alice in through the provider and uses her tools; a restart reuses her token`, BOUND, async (t) => {
    const { gateway, seen } = await gatewayFor(t)
    const folders = await mcpRemoteFolders(t)
    // An explicit callback port (a derived one could collide between tests run side by side), on 127.0.0.1.
    const args = [String(await freePort()), '--host', '127.0.0.1', '--protocol', mode]
    const started = Date.now()
    const remote = start(t, gateway, folders, args)
    const authorization = await authorizationUrl(remote)
    assert.equal(`${authorization.origin}${authorization.pathname}`, gateway.idp.authorizationEndpoint)
    // The gateway's resource (RFC 8707), and every scope its 401 named, as the user's consent will show.
    assert.equal(authorization.searchParams.get('resource'), gateway.resource)
    assert.equal(authorization.searchParams.get('scope'), 'tools:file tools:web tools:all offline_access')
    assert.equal(authorization.searchParams.get('code_challenge_method'), 'S256')
    await signInAlice(gateway, authorization)
    await bridged(remote)
    const session = await handshake(remote)
    assert.equal(session.protocolVersion, CLIENT_VERSION)
    // Her consent gave every scope asked for, tools:all among them.
    assert.deepEqual(session.tools, ['read_notes', 'run_shell', 'search_web'])
    await callReadNotes(remote, 'as alice')
    t.diagnostic(`signed in, listed and called in ${Date.now() - started} ms`)
    await remote.close()
    assertProtocol(seen, mode)

    // Only stubs were asked to open the page (and failed), with the URL it printed.
    const opened = await browserOpened(folders)
    assert.ok(opened.length > 0, 'mcp-remote tried to open a browser')
    for (const { url } of opened) assert.equal(new URL(url).searchParams.get('state'), authorization.searchParams.get('state'))
    assert.match(remote.stderr(), /Could not open a browser automatically/)
    // Discovery, registration, the user's walk, the code for a token; then the gateway checks it.
    const idpPaths = gateway.idp.requests.map((request) => request.path.replace(/^\/(interaction|auth)\/.+$/, '/$1/<uid>'))
    assert.deepEqual(idpPaths.slice(0, 4), ['/.well-known/oauth-authorization-server', '/.well-known/oauth-authorization-server', '/reg', '/auth'])
    assert.deepEqual(idpPaths.slice(idpPaths.indexOf('/token')), ['/token', '/.well-known/oauth-authorization-server', '/jwks'])
    // Its first requests, without a credential, were told where to sign in and counted as nothing.
    const refused = seen.filter((request) => request.status === 401)
    assert.ok(refused.length > 0 && refused.every((request) => request.auth === 'none'), JSON.stringify(refused))
    // (A stream still closing has no status yet.)
    assert.deepEqual(seen.filter((request) => request.auth === 'token' && (request.status ?? 0) >= 400), [], 'her token was never refused')
    assert.deepEqual(await storedFiles(folders), ['client_info.json', 'debug.log', 'tokens.json'])
    assert.deepEqual(await readdir(folders.home), [], 'nothing in ~/.mcp-auth')

    // Restarted (a desktop host relaunching it): the kept token serves, no browser, no provider round trip.
    const before = { idp: gateway.idp.requests.length, opened: opened.length }
    const again = await bridged(start(t, gateway, folders, args))
    assert.deepEqual((await handshake(again)).tools, ['read_notes', 'run_shell', 'search_web'])
    await callReadNotes(again, 'as alice again')
    await again.close()
    assert.doesNotMatch(again.stderr(), /Please authorize/)
    assert.equal((await browserOpened(folders)).length, before.opened)
    assert.deepEqual(gateway.idp.requests.slice(before.idp).map((request) => request.path), ['/.well-known/oauth-authorization-server'])
    assert.equal((await get(gateway, '/definitions', API_KEY)).status, 200, 'the address is not locked')
  })
}

test('alice asking for tools:web alone still has file through her group (eng), and nothing else', BOUND, async (t) => {
  const { gateway } = await gatewayFor(t)
  const folders = await mcpRemoteFolders(t)
  // The scope a user (or an operator's template) pins for mcp-remote, instead of the 401's.
  const remote = start(t, gateway, folders, [String(await freePort()), '--host', '127.0.0.1', '--static-oauth-client-metadata', '{"scope":"tools:web"}'])
  const authorization = await authorizationUrl(remote)
  assert.equal(authorization.searchParams.get('scope'), 'tools:web')
  await signInAlice(gateway, authorization)
  await bridged(remote)
  // tools:web gives web; groups: eng gives file and web; terminal is neither.
  assert.deepEqual((await handshake(remote)).tools, ['read_notes', 'search_web'])
  await callReadNotes(remote, 'through the group')
  const refused = await remote.request('tools/call', { name: 'run_shell', arguments: {} })
  assert.match(JSON.stringify(refused.error ?? refused.result), /Unknown tool/)
})
