// The test identity provider is a real one: its discovery documents, its JWT access tokens checked
// with jose against its JWKS, the code flow with PKCE for a dynamically registered client, token
// exchange, opaque tokens through introspection, key rotation, an outage on the same port, a delay.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose'
import { startIdentityProvider, TOKEN_EXCHANGE, tokenFrom, type IdentityProvider } from '../helpers/oidc-provider.ts'

const RESOURCE = 'https://gateway.test/mcp'
const UPSTREAM = 'https://upstream.test/mcp'
const bounded = { timeout: 20_000 }

async function verify (idp: IdentityProvider, token: string, audience = RESOURCE): Promise<JWTPayload> {
  const jwks = createRemoteJWKSet(new URL(idp.jwksUri), { timeoutDuration: 2000 })
  const { payload } = await jwtVerify(token, jwks, { issuer: idp.issuer, audience, typ: 'at+jwt', algorithms: ['RS256'] })
  return payload
}

async function getJson (url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2000) })
  assert.equal(response.status, 200, url)
  return await response.json() as Record<string, unknown>
}

async function publishedKids (idp: IdentityProvider): Promise<{ jwks: JSONWebKeySet, kids: Array<string | undefined> }> {
  const jwks = await getJson(idp.jwksUri) as unknown as JSONWebKeySet
  return { jwks, kids: jwks.keys.map((key) => key.kid) }
}

test('discovery: OpenID configuration and RFC 8414 metadata name the issuer, its endpoints, grants and scopes', bounded, async (t) => {
  const idp = await startIdentityProvider(t, { resource: RESOURCE })
  assert.match(idp.issuer, /^http:\/\/127\.0\.0\.1:\d+$/)
  const openid = await getJson(idp.discoveryUrl)
  const oauth = await getJson(idp.metadataUrl)
  for (const document of [openid, oauth]) {
    assert.equal(document.issuer, idp.issuer)
    assert.equal(document.jwks_uri, idp.jwksUri)
    assert.equal(document.token_endpoint, idp.tokenEndpoint)
    assert.equal(document.authorization_endpoint, idp.authorizationEndpoint)
    assert.equal(document.registration_endpoint, idp.registrationEndpoint)
    assert.equal(document.introspection_endpoint, idp.introspectionEndpoint)
    assert.deepEqual(document.code_challenge_methods_supported, ['S256'])
    assert.equal(document.authorization_response_iss_parameter_supported, true)
    for (const grant of ['authorization_code', 'client_credentials', 'refresh_token', TOKEN_EXCHANGE]) {
      assert.ok((document.grant_types_supported as string[]).includes(grant), grant)
    }
    for (const scope of ['openid', 'offline_access', 'tools:file', 'tools:web', 'tools:all']) {
      assert.ok((document.scopes_supported as string[]).includes(scope), scope)
    }
  }
  assert.deepEqual((await publishedKids(idp)).kids, [idp.signingKey().kid])
  assert.deepEqual(idp.serverErrors, [])
})

test('client credentials: an RFC 9068 JWT for the resource, verified against the JWKS', bounded, async (t) => {
  const idp = await startIdentityProvider(t, { resource: RESOURCE })
  const answer = await idp.clientCredentials({ scope: 'tools:file tools:web' })
  assert.equal(answer.token_type, 'Bearer')
  assert.equal(answer.scope, 'tools:file tools:web')
  const header = decodeProtectedHeader(answer.access_token)
  assert.deepEqual({ typ: header.typ, alg: header.alg, kid: header.kid }, { typ: 'at+jwt', alg: 'RS256', kid: idp.signingKey().kid })
  const claims = await verify(idp, answer.access_token)
  assert.equal(claims.aud, RESOURCE)
  assert.equal(claims.sub, idp.agentClient.id)
  assert.equal(claims.client_id, idp.agentClient.id)
  assert.equal(claims.scope, 'tools:file tools:web')
  assert.ok(typeof claims.jti === 'string' && typeof claims.exp === 'number' && claims.exp - Math.floor(Date.now() / 1000) <= 300)

  // Refusals: a wrong secret, an unknown resource.
  const wrongSecret = await idp.tokenRequest({ grant_type: 'client_credentials', scope: 'tools:file' }, { id: idp.agentClient.id, secret: 'nope' })
  assert.equal(wrongSecret.status, 401)
  assert.equal(wrongSecret.body.error, 'invalid_client')
  const unknownResource = await idp.tokenRequest({ grant_type: 'client_credentials', resource: 'https://nowhere.test/' }, idp.agentClient)
  assert.equal(unknownResource.body.error, 'invalid_target')
  assert.deepEqual(idp.serverErrors, [])
})

test('authorization code with PKCE, the client registered dynamically: the signed-in user\'s sub, groups, email and granted scopes', bounded, async (t) => {
  const idp = await startIdentityProvider(t, { resource: RESOURCE })
  const alice = await idp.userToken()
  const aliceClaims = await verify(idp, alice.access_token)
  assert.equal(aliceClaims.sub, 'alice')
  assert.deepEqual(aliceClaims.groups, ['eng'])
  assert.equal(aliceClaims.email, 'alice@example.test')
  assert.equal(aliceClaims.scope, 'tools:file tools:web tools:all')
  assert.ok(typeof alice.id_token === 'string', 'openid was asked: an ID token comes too')

  // bob may only have tools:web: consent grants that and refuses the rest.
  const bob = await idp.userToken({ account: 'bob', scope: 'tools:file tools:web' })
  const bobClaims = await verify(idp, bob.access_token)
  assert.equal(bobClaims.sub, 'bob')
  assert.deepEqual(bobClaims.groups, ['sales'])
  assert.equal(bobClaims.scope, 'tools:web')

  // A user added by the test, and a refused consent.
  idp.accounts.set('dave', { groups: ['ops', 'eng'], scopes: ['tools:file'], claims: { department: 'ops' } })
  const dave = await verify(idp, (await idp.userToken({ account: 'dave' })).access_token)
  assert.deepEqual([dave.sub, dave.groups, dave.scope, dave.department], ['dave', ['ops', 'eng'], 'tools:file', 'ops'])
  await assert.rejects(idp.userToken({ deny: true }), /access_denied/)
  assert.deepEqual(idp.serverErrors, [])
})

test('PKCE is enforced: no challenge is refused, a wrong verifier gets no token', bounded, async (t) => {
  const idp = await startIdentityProvider(t, { resource: RESOURCE })
  const registered = await idp.register({ redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none', application_type: 'native' })
  assert.equal(registered.status, 201)
  const clientId = String(registered.body.client_id)
  const url = new URL(idp.authorizationEndpoint)
  url.search = new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: 'http://127.0.0.1/cb', scope: 'tools:file' }).toString()
  const refused = await idp.authorize(url)
  assert.equal(refused.searchParams.get('error'), 'invalid_request')
  assert.match(refused.searchParams.get('error_description') ?? '', /PKCE/)

  url.searchParams.set('code_challenge', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')
  url.searchParams.set('code_challenge_method', 'S256')
  const code = (await idp.authorize(url)).searchParams.get('code')
  assert.ok(code !== null)
  const wrong = await idp.tokenRequest({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: 'http://127.0.0.1/cb', code_verifier: 'x'.repeat(43) })
  assert.equal(wrong.body.error, 'invalid_grant')
})

test('token exchange: a token for another audience with the same sub, the scope asked, act naming the gateway', bounded, async (t) => {
  const idp = await startIdentityProvider(t, { resource: RESOURCE, audiences: [UPSTREAM] })
  const subject = (await idp.userToken({ account: 'alice' })).access_token
  const exchanged = tokenFrom(await idp.exchangeToken(subject, { audience: UPSTREAM, scope: 'tools:file' }))
  assert.equal(exchanged.issued_token_type, 'urn:ietf:params:oauth:token-type:access_token')
  const claims = await verify(idp, exchanged.access_token, UPSTREAM)
  assert.deepEqual([claims.sub, claims.aud, claims.scope, claims.client_id], ['alice', UPSTREAM, 'tools:file', idp.gatewayClient.id])
  assert.deepEqual(claims.act, { sub: idp.gatewayClient.id })
  assert.deepEqual(claims.groups, ['eng'])
  // Without a scope asked, the subject token's scope carries over.
  assert.equal(decodeJwt(tokenFrom(await idp.exchangeToken(subject, { audience: UPSTREAM })).access_token).scope, 'tools:file tools:web tools:all')

  const refusals = {
    unknownAudience: await idp.exchangeToken(subject, { audience: 'https://unknown.test/' }),
    widerScope: await idp.exchangeToken((await idp.userToken({ account: 'bob' })).access_token, { audience: UPSTREAM, scope: 'tools:file' }),
    machineToken: await idp.exchangeToken((await idp.clientCredentials()).access_token, { audience: UPSTREAM }),
    notForTheGateway: await idp.exchangeToken(tokenFrom(await idp.exchangeToken(subject, { audience: UPSTREAM })).access_token, { audience: UPSTREAM }),
    forged: await idp.exchangeToken(`${subject.slice(0, -4)}AAAA`, { audience: UPSTREAM }),
    clientWithoutTheGrant: await idp.exchangeToken(subject, { audience: UPSTREAM, client: idp.agentClient }),
    wrongSecret: await idp.exchangeToken(subject, { audience: UPSTREAM, client: { id: idp.gatewayClient.id, secret: 'nope' } })
  }
  assert.deepEqual(Object.fromEntries(Object.entries(refusals).map(([name, answer]) => [name, answer.body.error])), {
    unknownAudience: 'invalid_target',
    widerScope: 'invalid_scope',
    machineToken: 'invalid_grant',
    notForTheGateway: 'invalid_grant',
    forged: 'invalid_grant',
    clientWithoutTheGrant: 'invalid_request',
    wrongSecret: 'invalid_client'
  })
  assert.match(String(refusals.notForTheGateway.body.error_description), /not addressed to/)
  assert.deepEqual(idp.serverErrors, [])
})

test('opaque access tokens: introspection by the gateway answers active with sub, aud, scope and groups', bounded, async (t) => {
  const idp = await startIdentityProvider(t, { resource: RESOURCE, accessTokenFormat: 'opaque' })
  const machine = (await idp.clientCredentials({ scope: 'tools:web' })).access_token
  assert.doesNotMatch(machine, /\./, 'an opaque token is not a JWT')
  const machineAnswer = await idp.introspect(machine)
  assert.equal(machineAnswer.status, 200)
  assert.equal(machineAnswer.body.active, true)
  assert.deepEqual([machineAnswer.body.aud, machineAnswer.body.scope, machineAnswer.body.client_id, machineAnswer.body.iss], [RESOURCE, 'tools:web', idp.agentClient.id, idp.issuer])

  const user = (await idp.userToken({ account: 'bob' })).access_token
  const userAnswer = await idp.introspect(user)
  assert.deepEqual([userAnswer.body.active, userAnswer.body.sub, userAnswer.body.scope, userAnswer.body.groups], [true, 'bob', 'tools:web', ['sales']])
  assert.equal((await idp.introspect('not-a-token')).body.active, false)
  // Introspection needs the gateway's own credentials.
  assert.equal((await idp.introspect(user, { id: idp.gatewayClient.id, secret: 'nope' })).status, 401)

  // Opaque tokens exchange too, and the format can change while running.
  const exchanged = tokenFrom(await idp.exchangeToken(user, { audience: RESOURCE }))
  assert.equal((await idp.introspect(exchanged.access_token)).body.sub, 'bob')
  idp.setAccessTokenFormat('jwt')
  assert.equal(decodeJwt((await idp.clientCredentials()).access_token).aud, RESOURCE)
  assert.deepEqual(idp.serverErrors, [])
})

test('key rotation: a new kid signs, the old key leaves the JWKS (or stays, if asked), grants survive', bounded, async (t) => {
  const idp = await startIdentityProvider(t, { resource: RESOURCE, audiences: [UPSTREAM] })
  const first = idp.signingKey()
  const before = (await idp.clientCredentials()).access_token
  const user = (await idp.userToken()).access_token

  const second = await idp.rotateKeys()
  assert.notEqual(second.kid, first.kid)
  const { jwks, kids } = await publishedKids(idp)
  assert.deepEqual(kids, [second.kid])
  const after = (await idp.clientCredentials()).access_token
  assert.equal(decodeProtectedHeader(after).kid, second.kid)
  await verify(idp, after)
  await assert.rejects(jwtVerify(before, createLocalJWKSet(jwks)), { code: 'ERR_JWKS_NO_MATCHING_KEY' })
  // The provider refuses to exchange a token signed by the key it dropped, as a resource server would.
  assert.equal((await idp.exchangeToken(user, { audience: UPSTREAM })).body.error, 'invalid_grant')

  const third = await idp.rotateKeys({ keepOld: true })
  assert.deepEqual((await publishedKids(idp)).kids, [third.kid, second.kid])
  await verify(idp, after)
  // Registered clients survive the rebuild: the public client of userToken() signs in again.
  await verify(idp, (await idp.userToken()).access_token)
  assert.deepEqual(idp.serverErrors, [])
})

test('stop and start on the same port: refused while stopped, the same issuer and keys after', bounded, async (t) => {
  const idp = await startIdentityProvider(t, { resource: RESOURCE })
  const token = (await idp.clientCredentials()).access_token
  await idp.stop()
  await assert.rejects(fetch(idp.discoveryUrl, { signal: AbortSignal.timeout(2000) }), (error: unknown) => {
    assert.equal(((error as Error).cause as { code?: string }).code, 'ECONNREFUSED')
    return true
  })
  await idp.start()
  assert.equal((await getJson(idp.discoveryUrl)).issuer, idp.issuer)
  await verify(idp, token)
})

test('delay and failure: a slow JWKS while the rest answers at once, a 503, and back', bounded, async (t) => {
  const idp = await startIdentityProvider(t, { resource: RESOURCE })
  idp.setDelay(400, ['/jwks'])
  const started = performance.now()
  await getJson(idp.discoveryUrl)
  assert.ok(performance.now() - started < 300, 'discovery is not delayed')
  await getJson(idp.jwksUri)
  assert.ok(performance.now() - started >= 400, 'the JWKS is')
  // A client with a shorter bound gives up.
  await assert.rejects(fetch(idp.jwksUri, { signal: AbortSignal.timeout(100) }), { name: 'TimeoutError' })
  idp.setDelay(0)

  idp.setFailure(503, ['/.well-known/'])
  assert.equal((await fetch(idp.discoveryUrl, { signal: AbortSignal.timeout(2000) })).status, 503)
  assert.equal((await fetch(idp.jwksUri, { signal: AbortSignal.timeout(2000) })).status, 200)
  idp.setFailure(undefined)
  await getJson(idp.discoveryUrl)
  // A held request does not outlive stop().
  idp.setDelay(60_000)
  const held = fetch(idp.jwksUri, { signal: AbortSignal.timeout(5000) })
  await new Promise((resolve) => setTimeout(resolve, 50))
  await idp.stop()
  await assert.rejects(held)
  assert.equal(idp.requests.filter((request) => request.path === '/jwks').length, 4)
})
