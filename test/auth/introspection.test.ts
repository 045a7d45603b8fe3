// Opaque access tokens, checked at the provider's introspection endpoint (RFC 7662) as the
// gateway's own client, when auth.oauth.introspection is on; without it they are refused naming it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { get, signInGateway, toolsOf } from './helpers.ts'

test('an opaque token is introspected: active ones get their toolsets, unknown ones are refused; without introspection none gets in', async (t) => {
  const gateway = await signInGateway(t, { oauth: { introspection: true }, idp: { accessTokenFormat: 'opaque' } })
  const { access_token: token } = await gateway.idp.clientCredentials({ scope: 'tools:web' })
  assert.doesNotMatch(token, /^[\w-]+\.[\w-]+\.[\w-]*$/, 'the provider issued an opaque token')
  const before = gateway.idp.requests.filter((request) => request.path === '/token/introspection').length
  assert.deepEqual(await toolsOf(gateway, token), ['search_web'])
  assert.deepEqual(await toolsOf(gateway, token), ['search_web'])
  assert.equal(gateway.idp.requests.filter((request) => request.path === '/token/introspection').length - before, 1, 'asked once, then kept')
  const unknown = await get(gateway, '/definitions', 'opaque-token-the-provider-never-issued')
  assert.equal(unknown.status, 401)
  assert.match(unknown.body.message, /not active/)

  const plain = await signInGateway(t, { idp: { accessTokenFormat: 'opaque' } })
  const opaque = await plain.idp.clientCredentials({ scope: 'tools:web' })
  const refused = await get(plain, '/definitions', opaque.access_token)
  assert.equal(refused.status, 401)
  assert.match(refused.body.message, /auth\.oauth\.introspection/)
})

test('the provider down while introspecting: 503 with Retry-After, after a bounded wait', async (t) => {
  const gateway = await signInGateway(t, { oauth: { introspection: true }, idp: { accessTokenFormat: 'opaque' } })
  const { access_token: token } = await gateway.idp.clientCredentials({ scope: 'tools:web' })
  // Metadata first, while the provider is up (it is kept).
  assert.equal((await get(gateway, '/definitions', 'warm-up-token')).status, 401)
  gateway.idp.setDelay(10_000, ['/token/introspection'])
  t.after(() => gateway.idp.setDelay(0))
  const began = performance.now()
  const answer = await get(gateway, '/definitions', token)
  assert.equal(answer.status, 503, JSON.stringify(answer.body))
  assert.match(answer.body.message, /could not introspect/)
  assert.ok(performance.now() - began < 4_000)
})
