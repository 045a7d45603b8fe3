// What checking a token found: its claims, or why it is refused and whether that counts as a guess.
import type { JWTPayload } from 'jose'

/** What a token says, once it was found genuine and meant for this gateway. */
export type TokenClaims = JWTPayload & Record<string, unknown>

export interface TokenRefusal {
  /** 401: the token is not good here; 503: the provider could not be asked to tell. */
  readonly status: 401 | 503
  readonly description: string
  /** The credential was never a token of the provider (bad signature, malformed, alg none): it counts as a failed login. */
  readonly guess: boolean
}

export type TokenVerdict = { readonly claims: TokenClaims } | { readonly refusal: TokenRefusal }
