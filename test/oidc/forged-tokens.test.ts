// Each forged token is wrong in the one way its name says: a strict RFC 9068 check with jose against
// the identity provider's JWKS refuses it for that reason, while a minted token passes.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose'
import { FORGED_KINDS, forgedTokens, type ForgedKind } from '../helpers/forged-tokens.ts'
import { startIdentityProvider } from '../helpers/oidc-provider.ts'

const RESOURCE = 'https://gateway.test/mcp'

test('forged tokens are refused for their own reason; minted ones verify', { timeout: 20_000 }, async (t) => {
  const idp = await startIdentityProvider(t, { resource: RESOURCE })
  const jwks = createRemoteJWKSet(new URL(idp.jwksUri), { timeoutDuration: 2000 })
  const check = async (token: string): Promise<string> => {
    try {
      await jwtVerify(token, jwks, { issuer: idp.issuer, audience: RESOURCE, typ: 'at+jwt', algorithms: ['RS256'] })
      return 'valid'
    } catch (error) {
      const { code, claim } = error as { code: string, claim?: string }
      return claim === undefined ? code : `${code} ${claim}`
    }
  }

  const minted = await idp.mintToken()
  assert.equal(await check(minted), 'valid')
  assert.deepEqual(decodeJwt(minted).groups, ['eng'])
  assert.equal(await check(await idp.mintToken({ sub: 'bob' })), 'valid')
  assert.equal(decodeJwt(await idp.mintToken({ sub: 'bob' })).scope, 'tools:web')
  assert.equal(await check(await idp.mintToken({ exp: undefined })), 'valid', 'no exp: jose accepts it, a gateway should not')

  const forged = await forgedTokens(idp.signingKey(), { issuer: idp.issuer, audience: RESOURCE })
  const verdicts = Object.fromEntries(await Promise.all(FORGED_KINDS.map(async (kind) => [kind, await check(forged[kind])] as const)))
  assert.deepEqual(verdicts, {
    expired: 'ERR_JWT_EXPIRED exp',
    notYetValid: 'ERR_JWT_CLAIM_VALIDATION_FAILED nbf',
    wrongAudience: 'ERR_JWT_CLAIM_VALIDATION_FAILED aud',
    wrongIssuer: 'ERR_JWT_CLAIM_VALIDATION_FAILED iss',
    algNone: 'ERR_JOSE_ALG_NOT_ALLOWED',
    hs256WithPublicKey: 'ERR_JOSE_ALG_NOT_ALLOWED',
    tampered: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    // Validly signed: only a size limit refuses it.
    oversized: 'valid',
    unknownKid: 'ERR_JWKS_NO_MATCHING_KEY',
    wrongKey: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    wrongTyp: 'ERR_JWT_CLAIM_VALIDATION_FAILED typ'
  } satisfies Record<ForgedKind, string>)
  assert.ok(forged.oversized.length >= 100 * 1024 && forged.oversized.length < 110 * 1024, `${forged.oversized.length} characters`)
  assert.equal(decodeProtectedHeader(forged.algNone).kid, idp.signingKey().kid)
  assert.equal(decodeProtectedHeader(forged.hs256WithPublicKey).alg, 'HS256')
  assert.equal(decodeJwt(forged.tampered).sub, 'mallory')
})
