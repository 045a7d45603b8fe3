// The user's own identity upstream: a server configured with auth.tokenExchange receives, on each
// call, a token the provider issued for the calling user and addressed to that server (RFC 8693),
// never the user's own token and never a shared credential; a call with an API key fails saying so.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ModernMcpHttpServer } from '../mcp-client/helpers/modern-http-server.ts'
import { until } from '../mcp-client/helpers/wait.ts'
import { API_KEY, dispatch, signInGateway } from './helpers.ts'

const UPSTREAM_AUDIENCE = 'https://upstream.example.test/mcp'

function claimsOf (authorization: string | undefined): Record<string, unknown> {
  assert.ok(authorization?.startsWith('Bearer ') === true, `a bearer token: ${authorization}`)
  const payload = (authorization ?? '').slice('Bearer '.length).split('.')[1] ?? ''
  return JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>
}

test('each call carries a token for its caller addressed to the upstream; kept per user; an API key call fails naming why', async (t) => {
  const upstream = new ModernMcpHttpServer({ whoami: { run: () => ({ content: [{ type: 'text', text: 'seen' }] }) } })
  await upstream.start()
  t.after(() => upstream.close())
  const gateway = await signInGateway(t, {
    idp: { audiences: [UPSTREAM_AUDIENCE] },
    oauth: { scopes: { 'tools:web': ['web', 'up'] } },
    config: { mcpServers: { up: { url: upstream.url, protocol: '2026-07-28', auth: { tokenExchange: { audience: UPSTREAM_AUDIENCE, scope: 'tools:web' } } } } }
  })
  await until(() => gateway.app.gateway.registry.getEntry('mcp__up__whoami') !== undefined, 'mcp__up__whoami listed', 10_000)
  // The exchange may narrow a user's scopes, never widen them: their tokens carry tools:web.
  const alice = await gateway.idp.userToken({ account: 'alice', scope: 'openid tools:web' })
  const bob = await gateway.idp.userToken({ account: 'bob', scope: 'openid tools:web' })
  const before = upstream.authorizations.length
  for (const user of [alice, bob, alice]) {
    const called = await dispatch(gateway, 'mcp__up__whoami', user.access_token)
    assert.equal(called.body.status, 'ok', JSON.stringify(called.body))
  }
  const calls = upstream.authorizations.slice(before).filter((seen) => seen.method === 'tools/call')
  assert.equal(calls.length, 3)
  const [first, second] = calls.map((seen) => claimsOf(seen.authorization))
  assert.equal(first.sub, 'alice')
  assert.equal(second.sub, 'bob')
  assert.equal(first.aud, UPSTREAM_AUDIENCE, 'addressed to the upstream, not to the gateway')
  assert.equal(first.scope, 'tools:web')
  assert.equal(calls[0].authorization, calls[2].authorization, 'alice\'s exchanged token is reused while it lasts')
  for (const seen of calls) assert.ok(!seen.authorization?.includes(alice.access_token) && !seen.authorization?.includes(bob.access_token), 'the users\' own tokens never reach the upstream')
  const exchanges = gateway.idp.requests.filter((request) => request.path === '/token').length
  assert.ok(exchanges >= 2)

  const byKey = await dispatch(gateway, 'mcp__up__whoami', API_KEY)
  assert.equal(byKey.body.ok, false)
  assert.match(byKey.body.error.message, /each caller's own identity.*API key carries no user/)
  assert.equal(upstream.authorizations.slice(before).filter((seen) => seen.method === 'tools/call').length, 3, 'nothing was sent for the key\'s call')
})

test('the provider refusing the exchange fails the call with the provider\'s reason; the upstream is not called', async (t) => {
  const upstream = new ModernMcpHttpServer({ whoami: { run: () => ({ content: [{ type: 'text', text: 'seen' }] }) } })
  await upstream.start()
  t.after(() => upstream.close())
  // The provider knows no such audience: it refuses to issue a token for it.
  const gateway = await signInGateway(t, { config: { mcpServers: { up: { url: upstream.url, protocol: '2026-07-28', auth: { tokenExchange: { audience: 'https://unknown.example.test' } } } } } })
  await until(() => gateway.app.gateway.registry.getEntry('mcp__up__whoami') !== undefined, 'mcp__up__whoami listed', 10_000)
  const alice = await gateway.idp.userToken({ account: 'alice', scope: 'openid tools:all' })
  const called = await dispatch(gateway, 'mcp__up__whoami', alice.access_token)
  assert.equal(called.body.ok, false)
  assert.match(called.body.error.message, /refused to exchange the caller's token for one addressed to https:\/\/unknown\.example\.test/)
  assert.equal(upstream.authorizations.filter((seen) => seen.method === 'tools/call').length, 0)
})
