// Checks an access token presented as a Bearer credential: a JWT (RFC 9068 or the provider's own
// shape) by its signature against the provider's keys (jose: JWKS fetched, cached, refetched for a
// key id not yet known at most once per cooldown), its issuer, its audience (this gateway: the
// configured resource or its origin, RFC 8707) and its times with a small skew; an opaque token,
// when enabled, at the provider's introspection endpoint (RFC 7662). Asymmetric algorithms only:
// `none` and the HMAC ones (whose key would be a secret shared with every client) are refused.
// Verdicts of good tokens are kept until they expire (a few minutes at most), so a client's token
// costs one check, not one per request.
import { createHash } from 'node:crypto'
import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose'
import type { OAuthConfig } from '../config/schema.ts'
import { IdentityProviderUnavailableError } from '../shared/errors.ts'
import { messageOf } from '../shared/objects.ts'
import { introspect } from './introspection.ts'
import type { IssuerMetadata } from './issuer-metadata.ts'
import type { TokenClaims, TokenVerdict } from './verdict.ts'

export type { TokenClaims, TokenRefusal, TokenVerdict } from './verdict.ts'

const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519']
/** Past this a credential is refused unread: real access tokens are a few KB at most. */
export const MAX_TOKEN_BYTES = 16_384
/** Verdicts kept at most; past it the oldest go first. */
const MAX_KEPT = 10_000
/** A good verdict is reused this long at most, whatever the token's own lifetime (introspection: its revocation shows within it). */
const KEEP_MS = 300_000
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/

function refused (description: string, guess: boolean, status: 401 | 503 = 401): TokenVerdict {
  return { refusal: { status, description, guess } }
}

/** The provider's keys could not be fetched (down, slow, answering an error), as opposed to a token being bad. */
function keysUnreachable (err: unknown): boolean {
  return err instanceof errors.JWKSTimeout || err instanceof TypeError || (err instanceof errors.JOSEError && err.code === 'ERR_JOSE_GENERIC')
}

/** The signing keys, and the last set fetched while the provider cannot be reached: tokens it already signed keep working. */
function signingKeys (jwksUri: string, config: OAuthConfig): JWTVerifyGetKey {
  const remote = createRemoteJWKSet(new URL(jwksUri), { cooldownDuration: config.jwksCooldownMs, timeoutDuration: config.requestTimeoutMs, cacheMaxAge: 600_000 })
  let lastKnown: JSONWebKeySet | undefined
  return async (header, token) => {
    try {
      const key = await remote(header, token)
      lastKnown = remote.jwks()
      return key
    } catch (err) {
      if (!keysUnreachable(err) || lastKnown === undefined) throw err
      try {
        return await createLocalJWKSet(lastKnown)(header, token)
      } catch {
        // A key id the last fetched set lacks, while the provider cannot be asked: nobody can tell.
        throw err
      }
    }
  }
}

/** Why jose refused a JWT, in the words a client can act on, and whether it was a token of the provider at all. */
function jwtRefusal (err: unknown): TokenVerdict {
  if (err instanceof errors.JWTExpired) return refused(`the token expired (exp ${String(err.payload.exp)}): get a new one`, false)
  if (err instanceof errors.JWTClaimValidationFailed) return refused(`the token's ${err.claim} claim is not accepted here: ${err.message}`, false)
  if (err instanceof errors.JOSEAlgNotAllowed) return refused('the token is not signed with an asymmetric algorithm (none and HS* are refused)', true)
  if (err instanceof errors.JWSSignatureVerificationFailed) return refused('the token\'s signature does not verify', true)
  // Not a guess: within the refetch floor a key the provider has just rotated in looks the same.
  if (err instanceof errors.JWKSNoMatchingKey) return refused('the token is signed with a key the provider does not publish (a key it has just added is fetched at most once per auth.oauth.jwksCooldownMs)', false)
  if (keysUnreachable(err)) return refused(`the provider's keys could not be fetched (${messageOf(err)})`, false, 503)
  return refused(`the token is not a valid JWT (${messageOf(err)})`, true)
}

export class TokenVerifier {
  readonly #config: OAuthConfig
  readonly #metadata: IssuerMetadata
  readonly #audiences: string[]
  readonly #kept = new Map<string, { claims: TokenClaims, until: number }>()
  #keys: { uri: string, get: JWTVerifyGetKey } | undefined
  readonly #now: () => number

  constructor (config: OAuthConfig, metadata: IssuerMetadata, now: () => number = Date.now) {
    this.#config = config
    this.#metadata = metadata
    this.#now = now
    const resource = new URL(config.resource)
    // RFC 9728 names the gateway's origin as a resource too (its root metadata document).
    this.#audiences = [...new Set([config.resource, resource.origin, `${resource.origin}/`])]
  }

  async verify (token: string): Promise<TokenVerdict> {
    if (Buffer.byteLength(token) > MAX_TOKEN_BYTES) return refused(`the credential is ${Buffer.byteLength(token)} bytes, over the ${MAX_TOKEN_BYTES} an access token may take`, true)
    const id = createHash('sha256').update(token).digest('base64url')
    const kept = this.#kept.get(id)
    if (kept !== undefined && kept.until > this.#now()) return { claims: kept.claims }
    let verdict: TokenVerdict
    try {
      verdict = JWT_SHAPE.test(token) ? await this.#verifyJwt(token) : await this.#verifyOpaque(token)
    } catch (err) {
      if (err instanceof IdentityProviderUnavailableError) return refused(err.message, false, 503)
      throw err
    }
    if ('claims' in verdict) this.#keep(id, verdict.claims)
    return verdict
  }

  async #verifyJwt (token: string): Promise<TokenVerdict> {
    const metadata = await this.#metadata.get()
    if (metadata.jwks_uri === undefined) return refused(`the provider ${metadata.issuer} publishes no jwks_uri to check JWTs with`, false, 503)
    if (this.#keys?.uri !== metadata.jwks_uri) this.#keys = { uri: metadata.jwks_uri, get: signingKeys(metadata.jwks_uri, this.#config) }
    try {
      const { payload } = await jwtVerify(token, this.#keys.get, {
        issuer: metadata.issuer,
        audience: this.#audiences,
        algorithms: ASYMMETRIC_ALGORITHMS,
        clockTolerance: this.#config.clockSkewSeconds,
        requiredClaims: ['exp']
      })
      return { claims: payload as TokenClaims }
    } catch (err) {
      return jwtRefusal(err)
    }
  }

  async #verifyOpaque (token: string): Promise<TokenVerdict> {
    if (!this.#config.introspection) return refused('the credential is neither an API key nor a JWT access token (opaque tokens are checked only with auth.oauth.introspection)', true)
    const answer = await introspect(this.#config, await this.#metadata.get(), token)
    if ('refusal' in answer) return answer
    const { claims } = answer
    const audiences = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : undefined
    // Introspection answers for tokens of every resource: one that names others is not for the gateway.
    if (audiences !== undefined && !audiences.some((aud) => this.#audiences.includes(aud))) return refused(`the token is meant for ${audiences.join(', ')}, not this gateway (${this.#config.resource})`, false)
    if (typeof claims.exp === 'number' && claims.exp * 1000 + this.#config.clockSkewSeconds * 1000 < this.#now()) return refused('the token expired: get a new one', false)
    return answer
  }

  #keep (id: string, claims: TokenClaims): void {
    const expires = typeof claims.exp === 'number' ? claims.exp * 1000 : this.#now()
    const until = Math.min(expires, this.#now() + KEEP_MS)
    if (until <= this.#now()) return
    if (this.#kept.size >= MAX_KEPT) {
      for (const [old, entry] of this.#kept) {
        if (entry.until <= this.#now() || this.#kept.size >= MAX_KEPT) this.#kept.delete(old)
        if (this.#kept.size < MAX_KEPT * 0.9) break
      }
    }
    this.#kept.set(id, { claims, until })
  }
}
