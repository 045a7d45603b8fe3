// Access tokens made locally for negative tests of a resource server: each is wrong in exactly one
// way, and is otherwise signed with the issuer's real current key, so a refusal proves the check
// it names (expired is refused for `exp`, not for a bad signature). Built with jose, or by hand
// where jose rightly refuses to (alg none, HS256 keyed with the public key).
import { createHmac, createPublicKey, randomUUID, type JsonWebKey } from 'node:crypto'
import { CompactSign, importJWK } from 'jose'
import { newSigningKey, type SigningKey } from './idp/signing-keys.ts'

export interface TokenBase {
  issuer: string
  audience: string
  sub?: string
  scope?: string
  clientId?: string
  /** Lifetime in seconds; default 300. */
  ttl?: number
  claims?: Record<string, unknown>
}

export const FORGED_KINDS = [
  'expired', 'notYetValid', 'wrongAudience', 'wrongIssuer', 'algNone', 'hs256WithPublicKey',
  'tampered', 'oversized', 'unknownKid', 'wrongKey', 'wrongTyp'
] as const
export type ForgedKind = typeof FORGED_KINDS[number]

const epoch = (): number => Math.floor(Date.now() / 1000)
const segment = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')

/** An RFC 9068 claim set, valid now for `ttl` seconds. */
export function accessTokenClaims (base: TokenBase): Record<string, unknown> {
  const iat = epoch()
  return {
    iss: base.issuer,
    sub: base.sub ?? 'alice',
    aud: base.audience,
    client_id: base.clientId ?? 'agent',
    scope: base.scope ?? 'tools:file',
    iat,
    exp: iat + (base.ttl ?? 300),
    jti: randomUUID(),
    ...base.claims
  }
}

/** Signs any payload as an `at+jwt` with `key` (header fields may be overridden; undefined claims are left out). */
export async function signToken (key: SigningKey, payload: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const privateKey = await importJWK(key.privateJwk, key.alg)
  return await new CompactSign(Buffer.from(JSON.stringify(payload)))
    .setProtectedHeader({ typ: 'at+jwt', kid: key.kid, ...header, alg: key.alg })
    .sign(privateKey)
}

/** An unsecured JWT (`alg: none`, empty signature) naming the real key. */
export function algNoneToken (key: SigningKey, payload: Record<string, unknown>): string {
  return `${segment({ alg: 'none', typ: 'at+jwt', kid: key.kid })}.${segment(payload)}.`
}

/** The algorithm-confusion attack: HS256 with the issuer's public key (PEM) as the HMAC secret. */
export function hs256WithPublicKeyToken (key: SigningKey, payload: Record<string, unknown>): string {
  const pem = createPublicKey({ key: key.publicJwk as JsonWebKey, format: 'jwk' }).export({ type: 'spki', format: 'pem' })
  const input = `${segment({ alg: 'HS256', typ: 'at+jwt', kid: key.kid })}.${segment(payload)}`
  return `${input}.${createHmac('sha256', pem).update(input).digest('base64url')}`
}

/** The same token with claims changed and the original signature kept. */
export function tamperedToken (token: string, changes: Record<string, unknown>): string {
  const [header, payload, signature] = token.split('.')
  const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown>
  return `${header}.${segment({ ...claims, ...changes })}.${signature}`
}

/** A validly signed token of about `bytes` characters: only a size limit refuses it. */
export async function oversizedToken (key: SigningKey, payload: Record<string, unknown>, bytes = 100 * 1024): Promise<string> {
  // base64url grows the payload by 4/3; the padding claim makes up the size.
  return await signToken(key, { ...payload, padding: 'x'.repeat(Math.ceil(bytes * 3 / 4)) })
}

/** One token of each kind in FORGED_KINDS, for the issuer whose current key is `key`. */
export async function forgedTokens (key: SigningKey, base: TokenBase): Promise<Record<ForgedKind, string>> {
  const claims = accessTokenClaims(base)
  const now = epoch()
  const stranger = await newSigningKey(key.alg)
  const valid = await signToken(key, claims)
  return {
    expired: await signToken(key, { ...claims, iat: now - 7200, exp: now - 3600 }),
    notYetValid: await signToken(key, { ...claims, nbf: now + 3600 }),
    wrongAudience: await signToken(key, { ...claims, aud: 'https://another-resource.example.test/' }),
    wrongIssuer: await signToken(key, { ...claims, iss: 'https://another-issuer.example.test' }),
    algNone: algNoneToken(key, claims),
    hs256WithPublicKey: hs256WithPublicKeyToken(key, claims),
    tampered: tamperedToken(valid, { scope: 'tools:all', sub: 'mallory' }),
    oversized: await oversizedToken(key, claims),
    // A key the issuer never published: the resource server refetches the JWKS and still finds no such kid.
    unknownKid: await signToken(stranger, claims),
    // Another key's signature under the real kid.
    wrongKey: await signToken({ ...stranger, kid: key.kid }, claims),
    // RFC 9068 §4: an access token is typed at+jwt (an ID token replayed as one is typed JWT).
    wrongTyp: await signToken(key, claims, { typ: 'JWT' })
  }
}
