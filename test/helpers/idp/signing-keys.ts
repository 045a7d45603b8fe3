// Signing keys for the test identity provider: each with a fresh `kid`, so a rotation is visible
// to a resource server exactly as it is with a real issuer (a token names a key its JWKS lacks).
import { randomBytes } from 'node:crypto'
import { exportJWK, generateKeyPair, type JWK } from 'jose'

/** Asymmetric algorithms the harness signs access tokens with (RS256 is what most issuers use). */
export type SigningAlg = 'RS256' | 'ES256'

export interface SigningKey {
  readonly kid: string
  readonly alg: SigningAlg
  /** Private JWK (with kid, alg, use): what oidc-provider's `jwks` takes, and what forged tokens are signed with. */
  readonly privateJwk: JWK
  /** The same key as the issuer's JWKS publishes it. */
  readonly publicJwk: JWK
}

export async function newSigningKey (alg: SigningAlg): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  const kid = `test-${randomBytes(6).toString('base64url')}`
  const labels = { kid, alg, use: 'sig' }
  return {
    kid,
    alg,
    privateJwk: { ...await exportJWK(privateKey), ...labels },
    publicJwk: { ...await exportJWK(publicKey), ...labels }
  }
}
