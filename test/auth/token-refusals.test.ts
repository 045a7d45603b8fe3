// Tokens that must not get in, refused fast with the right error; genuine tokens that are merely
// expired or meant elsewhere do not count as guesses, forged ones do; the provider's keys rotated,
// the provider down or slow: tokens of known keys keep working, others are refused with a clear
// error after a bounded wait.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { FORGED_KINDS, forgedTokens } from '../helpers/forged-tokens.ts'
import { API_KEY, get, signInGateway, toolsOf } from './helpers.ts'

test('forged, expired, early, misaddressed, alg none, HS256, tampered and 100 KB tokens are refused fast, each saying why', async (t) => {
  const gateway = await signInGateway(t, { env: { AUTH_FAILURE_MAX: '1000' } })
  const tokens = await forgedTokens(gateway.idp.signingKey(), { issuer: gateway.idp.issuer, audience: gateway.resource, scope: 'tools:file' })
  const why: Record<string, RegExp> = {
    expired: /expired/,
    notYetValid: /nbf/,
    wrongAudience: /aud/,
    wrongIssuer: /iss/,
    algNone: /asymmetric algorithm/,
    hs256WithPublicKey: /asymmetric algorithm/,
    tampered: /signature/,
    unknownKid: /key the provider does not publish/,
    wrongKey: /signature/
  }
  for (const kind of FORGED_KINDS) {
    if (kind === 'wrongTyp') continue
    const began = performance.now()
    const answer = await get(gateway, '/definitions', tokens[kind])
    if (kind === 'oversized') {
      // Node refuses headers past 16 KB before any code of the gateway runs (the token check's own cap is the same).
      assert.equal(answer.status, 431)
      continue
    }
    assert.equal(answer.status, 401, `${kind}: ${JSON.stringify(answer.body)}`)
    assert.match(answer.body.message, why[kind], kind)
    assert.match(answer.headers.get('www-authenticate') ?? '', /error="invalid_token", error_description="[^"]+"/, kind)
    assert.ok(performance.now() - began < 3_000, `${kind} answered in ${Math.round(performance.now() - began)} ms`)
  }
  // Major providers (Entra ID, Okta, Keycloak) type their access tokens JWT, not at+jwt: the
  // audience check is what keeps an ID token (whose aud is a client id) out.
  assert.deepEqual(await toolsOf(gateway, tokens.wrongTyp), ['read_notes'])
})

test('genuine tokens that are expired do not count as failed logins; forged ones do, and lock the address out', async (t) => {
  const gateway = await signInGateway(t, { env: { AUTH_FAILURE_MAX: '3', AUTH_FAILURE_WINDOW_MS: '60000' } })
  const tokens = await forgedTokens(gateway.idp.signingKey(), { issuer: gateway.idp.issuer, audience: gateway.resource })
  for (let i = 0; i < 5; i++) assert.equal((await get(gateway, '/definitions', tokens.expired)).status, 401)
  for (let i = 0; i < 5; i++) assert.equal((await get(gateway, '/definitions', tokens.wrongAudience)).status, 401)
  assert.equal((await get(gateway, '/definitions', API_KEY)).status, 200, 'ten genuine tokens refused, the address is not locked')
  for (let i = 0; i < 3; i++) assert.equal((await get(gateway, '/definitions', tokens.tampered)).status, 401)
  const locked = await get(gateway, '/definitions', API_KEY)
  assert.equal(locked.status, 429, 'three forged tokens lock the address out')
})

/** Waits out auth.oauth.jwksCooldownMs (1 s in these tests), the least time between two fetches of the keys. */
const cooldown = async (): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, 1_100)) }

test('after the provider rotates its keys, a token with the new key id is accepted once the refetch floor has passed', async (t) => {
  const gateway = await signInGateway(t)
  const before = await gateway.idp.clientCredentials({ scope: 'tools:file' })
  assert.deepEqual(await toolsOf(gateway, before.access_token), ['read_notes'])
  const oldKid = gateway.idp.signingKey().kid
  await gateway.idp.rotateKeys()
  assert.notEqual(gateway.idp.signingKey().kid, oldKid)
  const after = await gateway.idp.clientCredentials({ scope: 'tools:web' })
  const early = await get(gateway, '/definitions', after.access_token)
  assert.equal(early.status, 401, 'within the floor the keys are not fetched again')
  assert.match(early.body.message, /jwksCooldownMs/)
  await cooldown()
  assert.deepEqual(await toolsOf(gateway, after.access_token), ['search_web'])
})

test('the provider down: tokens of keys already fetched keep working, a new key id is refused 503 after a bounded wait, and works once it is back', async (t) => {
  const gateway = await signInGateway(t)
  const known = await gateway.idp.clientCredentials({ scope: 'tools:file' })
  assert.deepEqual(await toolsOf(gateway, known.access_token), ['read_notes'])
  await gateway.idp.stop()
  assert.deepEqual(await toolsOf(gateway, known.access_token), ['read_notes'], 'the token already checked')
  const sameKey = await gateway.idp.mintToken({ scope: 'tools:web', groups: undefined })
  assert.deepEqual(await toolsOf(gateway, sameKey), ['search_web'], 'a new token of a known key: the keys are cached')
  await gateway.idp.rotateKeys()
  const newKey = await gateway.idp.mintToken({ scope: 'tools:web', groups: undefined })
  await cooldown()
  const began = performance.now()
  const refused = await get(gateway, '/definitions', newKey)
  assert.equal(refused.status, 503, JSON.stringify(refused.body))
  assert.equal(refused.body.code, 'GW_ERR_IDENTITY_PROVIDER_UNAVAILABLE')
  assert.match(refused.body.message, /keys could not be fetched/)
  assert.equal(refused.headers.get('retry-after'), '5')
  assert.ok(performance.now() - began < 3_000, `answered in ${Math.round(performance.now() - began)} ms`)
  assert.equal((await get(gateway, '/definitions', API_KEY)).status, 200, 'API keys are not affected')
  await gateway.idp.start()
  await cooldown()
  const deadline = Date.now() + 5_000
  let status = 0
  while (status !== 200 && Date.now() < deadline) {
    status = (await get(gateway, '/definitions', newKey)).status
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200))
  }
  assert.equal(status, 200)
})

test('a slow provider: the key fetch is abandoned at auth.oauth.requestTimeoutMs and the token refused 503', async (t) => {
  const gateway = await signInGateway(t)
  const known = await gateway.idp.clientCredentials({ scope: 'tools:file' })
  assert.equal((await get(gateway, '/definitions', known.access_token)).status, 200)
  await gateway.idp.rotateKeys()
  gateway.idp.setDelay(10_000, ['/jwks'])
  t.after(() => gateway.idp.setDelay(0))
  const token = await gateway.idp.mintToken({ scope: 'tools:file' })
  await cooldown()
  const began = performance.now()
  const refused = await get(gateway, '/definitions', token)
  const took = performance.now() - began
  assert.equal(refused.status, 503, JSON.stringify(refused.body))
  assert.ok(took >= 900 && took < 4_000, `refused after ${Math.round(took)} ms (requestTimeoutMs 1 000)`)
})

test('a provider that cannot be asked for its metadata: tokens are refused 503 saying so, API keys still work', async (t) => {
  const gateway = await signInGateway(t)
  const token = await gateway.idp.mintToken({ scope: 'tools:file' })
  await gateway.idp.stop()
  const refused = await get(gateway, '/definitions', token)
  assert.equal(refused.status, 503)
  assert.match(refused.body.message, /could not be asked for its metadata/)
  assert.equal((await get(gateway, '/definitions', API_KEY)).status, 200)
})
