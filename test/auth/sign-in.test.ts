// Access tokens of a real OpenID provider (oidc-provider on loopback) beside API keys: who gets in,
// with which toolsets (scopes and groups mapped), what a client without a token is told (RFC 9728
// metadata, WWW-Authenticate), and a token that grants nothing (403 insufficient_scope).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { API_KEY, dispatch, get, signInGateway, toolsOf } from './helpers.ts'

test('a client-credentials token with tools:file sees and calls the file toolset only; the principal is user:<client>', async (t) => {
  const gateway = await signInGateway(t)
  const { access_token: token } = await gateway.idp.clientCredentials({ scope: 'tools:file' })
  assert.deepEqual(await toolsOf(gateway, token), ['read_notes'])
  const called = await dispatch(gateway, 'read_notes', token, { text: 'hi' })
  assert.equal(called.status, 200)
  assert.equal(called.body.content, '{"echoed":"hi"}')
  assert.equal((await dispatch(gateway, 'search_web', token)).status, 404, 'outside its toolsets a tool does not exist')
  const seen: string[] = []
  gateway.app.gateway.registry.register({ ...(await import('../helpers/tools.ts')).fixtureTool('whoami', { toolset: 'file' }), handler: async (_args, ctx) => { seen.push(String(ctx.principal)); return 'ok' } })
  await dispatch(gateway, 'whoami', token)
  assert.deepEqual(seen, [`user:${gateway.idp.agentClient.id}`])
})

test('users signed in by authorization code + PKCE get the toolsets of their scopes and groups', async (t) => {
  const gateway = await signInGateway(t)
  // alice: group eng (file, web) and every scope; bob: group sales, tools:web only.
  const alice = await gateway.idp.userToken({ account: 'alice', scope: 'openid tools:web' })
  assert.deepEqual(await toolsOf(gateway, alice.access_token), ['read_notes', 'search_web'], 'tools:web and the eng group (file, web)')
  const bob = await gateway.idp.userToken({ account: 'bob', scope: 'openid tools:web' })
  assert.deepEqual(await toolsOf(gateway, bob.access_token), ['search_web'])
  const everything = await gateway.idp.userToken({ account: 'alice', scope: 'openid tools:all' })
  assert.deepEqual(await toolsOf(gateway, everything.access_token), ['read_notes', 'run_shell', 'search_web'])
})

test('a token granting no toolset is 403 insufficient_scope, naming the scopes to ask for', async (t) => {
  const gateway = await signInGateway(t)
  const carol = await gateway.idp.userToken({ account: 'carol', scope: 'openid' })
  const answer = await get(gateway, '/definitions', carol.access_token)
  assert.equal(answer.status, 403)
  assert.equal(answer.body.code, 'GW_ERR_INSUFFICIENT_SCOPE')
  assert.match(answer.body.message, /tools:file, tools:web, tools:all/)
  const challenge = answer.headers.get('www-authenticate') ?? ''
  assert.match(challenge, /error="insufficient_scope"/)
  assert.match(challenge, /scope="tools:file tools:web tools:all"/)
})

test('without a credential: 401 with resource_metadata and scope; the metadata documents name the provider', async (t) => {
  const gateway = await signInGateway(t)
  for (const [path, metadata] of [['/definitions', `${gateway.base}/.well-known/oauth-protected-resource`], ['/mcp', `${gateway.base}/.well-known/oauth-protected-resource/mcp`]] as const) {
    const answer = path === '/mcp'
      ? await fetch(`${gateway.base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' })
      : await fetch(`${gateway.base}${path}`)
    assert.equal(answer.status, 401, path)
    const challenge = answer.headers.get('www-authenticate') ?? ''
    assert.match(challenge, new RegExp(`resource_metadata="${metadata}"`), challenge)
    assert.match(challenge, /scope="tools:file tools:web tools:all"/)
    assert.doesNotMatch(challenge, /error=/, 'no token was presented: no error')
  }
  const root = await get(gateway, '/.well-known/oauth-protected-resource')
  assert.deepEqual(root.body, { resource: gateway.base, authorization_servers: [gateway.idp.issuer], scopes_supported: ['tools:file', 'tools:web', 'tools:all'], bearer_methods_supported: ['header'], resource_name: 'tool-gateway' })
  const mcp = await get(gateway, '/.well-known/oauth-protected-resource/mcp')
  assert.equal(mcp.body.resource, gateway.resource)
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/.well-known/oauth-protected-resource/elsewhere']) {
    const answer = await get(gateway, path)
    assert.equal(answer.status, 404, path)
    assert.match(answer.body.message, new RegExp(gateway.idp.issuer.replace(/[.]/g, '\\.')))
  }
})

test('API keys keep working beside tokens, and a wrong key is still a wrong credential', async (t) => {
  const gateway = await signInGateway(t)
  assert.deepEqual(await toolsOf(gateway, API_KEY), ['read_notes', 'run_shell', 'search_web'])
  const wrong = await get(gateway, '/definitions', 'not-a-key-nor-a-token')
  assert.equal(wrong.status, 401)
  assert.match(wrong.headers.get('www-authenticate') ?? '', /error="invalid_token"/)
  assert.match(wrong.body.message, /neither an API key nor a JWT/)
})
