// Sign-in with an access token: verified (token-verifier.ts), then mapped to a principal and its
// toolsets (token-principal.ts). One object per gateway, made only when auth.oauth is configured;
// jose and oauth4webapi load with it.
import type { OAuthConfig } from '../config/schema.ts'
import type { Principal } from '../access/principal.ts'
import type { CallerIdentity } from '../registry/types.ts'
import { IssuerMetadata } from './issuer-metadata.ts'
import { TokenExchange } from './token-exchange.ts'
import { grantOf } from './token-principal.ts'
import { TokenVerifier } from './token-verifier.ts'

export interface SignInRefusal {
  /** 401 invalid_token, 403 insufficient_scope, 503 the provider could not be asked. */
  readonly status: 401 | 403 | 503
  readonly description: string
  /** Counts as a failed login of the address (a credential that never was a token of the provider). */
  readonly guess: boolean
}

export type SignIn = { readonly principal: Principal } | { readonly refusal: SignInRefusal }

export class TokenSignIn {
  readonly config: OAuthConfig
  readonly metadata: IssuerMetadata
  readonly #verifier: TokenVerifier
  readonly #exchange: TokenExchange

  constructor (config: OAuthConfig) {
    this.config = config
    this.metadata = new IssuerMetadata(config)
    this.#verifier = new TokenVerifier(config, this.metadata)
    this.#exchange = new TokenExchange(config, this.metadata)
  }

  /** The signed-in user `principal`, able to exchange its `token` for one addressed to another service. */
  identityOf (principal: Principal, token: string): CallerIdentity {
    return this.#exchange.identityOf(principal.name, token)
  }

  async signIn (token: string): Promise<SignIn> {
    const verdict = await this.#verifier.verify(token)
    if ('refusal' in verdict) return verdict
    const grant = grantOf(verdict.claims, this.config)
    return 'principal' in grant ? grant : { refusal: { ...grant.refusal, guess: false } }
  }
}
