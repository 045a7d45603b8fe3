// Who a verified token's bearer is, and what it may use: the principal is `user:` and the value of
// auth.oauth.principalClaim (`sub` by default), namespaced so that no user can take the name of an
// API key (kept results, idempotency records and sessions are owned by the principal's name); the
// toolsets are those its scopes (auth.oauth.scopes) and claim values (auth.oauth.claims, such as
// groups) are mapped to. A token that maps to none is genuine but grants nothing: insufficient_scope.
import type { OAuthConfig } from '../config/schema.ts'
import type { Principal } from '../access/principal.ts'
import type { TokenClaims } from './verdict.ts'

const EVERYTHING = new Set(['all', '*'])
/** A principal claim longer than this is refused: it ends up in every log line and key. */
const MAX_SUBJECT_CHARS = 256

export type TokenGrant =
  | { readonly principal: Principal }
  | { readonly refusal: { readonly status: 401 | 403, readonly description: string } }

/** The scopes of a token: `scope` (RFC 9068, space-separated) or `scp` (Entra ID, Okta: a string or a list). */
export function scopesOf (claims: TokenClaims): string[] {
  const raw = claims.scope ?? claims.scp
  if (typeof raw === 'string') return raw.split(' ').filter((scope) => scope !== '')
  return Array.isArray(raw) ? raw.filter((scope): scope is string => typeof scope === 'string') : []
}

function valuesOf (claim: unknown): string[] {
  if (typeof claim === 'string') return [claim]
  return Array.isArray(claim) ? claim.filter((value): value is string => typeof value === 'string') : []
}

export function grantOf (claims: TokenClaims, config: OAuthConfig): TokenGrant {
  // A client acting for itself (client credentials) has no user: RFC 9068 makes its sub the
  // client id, and an introspection answer (RFC 7662) may give only client_id.
  const subject = claims[config.principalClaim] ?? (config.principalClaim === 'sub' ? claims.client_id : undefined)
  if (typeof subject !== 'string' || subject === '' || subject.length > MAX_SUBJECT_CHARS) {
    return { refusal: { status: 401, description: `the token has no usable ${config.principalClaim} claim (a string of 1 to ${MAX_SUBJECT_CHARS} characters) to name its bearer` } }
  }
  const toolsets = new Set<string>()
  for (const scope of scopesOf(claims)) for (const toolset of config.scopes[scope] ?? []) toolsets.add(toolset)
  for (const [claim, mapping] of Object.entries(config.claims)) {
    for (const value of valuesOf(claims[claim])) for (const toolset of mapping[value] ?? []) toolsets.add(toolset)
  }
  // With auth.oauth.adminScope, that scope alone makes an operator (even granting no toolset); without it, a token for every toolset is one, as a key is.
  const operator = config.adminScope === undefined ? undefined : scopesOf(claims).includes(config.adminScope)
  if (toolsets.size === 0 && operator !== true) {
    return { refusal: { status: 403, description: `the token grants no toolset here: ask for one of the scopes ${Object.keys(config.scopes).join(', ') || '(none configured)'}${Object.keys(config.claims).length === 0 ? '' : `, or be given a mapped value of ${Object.keys(config.claims).join(', ')}`}` } }
  }
  const all = [...toolsets].some((toolset) => EVERYTHING.has(toolset))
  const expiresAt = typeof claims.exp === 'number' ? claims.exp * 1000 : undefined
  return {
    principal: Object.freeze({
      name: `user:${subject}`,
      toolsets: all ? undefined : Object.freeze([...toolsets].sort()),
      kind: 'user' as const,
      ...(operator === undefined ? {} : { operator }),
      expiresAt
    })
  }
}
