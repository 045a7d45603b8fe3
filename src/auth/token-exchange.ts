// Tokens for a signed-in user at another service, obtained from the identity provider by token
// exchange (RFC 8693): the user's token is the subject, the gateway authenticates as its own client
// (auth.oauth.client), and the answer is a token addressed to that service, naming the same user.
// The user's own token is never sent anywhere but to the provider (the MCP authorization
// specification forbids passing it through). Exchanged tokens are kept per (user, audience, scope)
// until shortly before they expire, and concurrent calls of one user share one exchange.
import * as oauth from 'oauth4webapi'
import type { OAuthConfig } from '../config/schema.ts'
import { providerMessage } from './provider-errors.ts'
import type { CallerIdentity } from '../registry/types.ts'
import type { IssuerMetadata } from './issuer-metadata.ts'
import { providerRequestOptions } from './issuer-metadata.ts'

const GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:token-exchange'
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token'
/** An exchanged token is used until this long before it expires, so that none expires on its way. */
const MARGIN_MS = 30_000
/** Without expires_in, a token is reused this long. */
const DEFAULT_LIFETIME_MS = 300_000
/** Exchanged tokens kept at most; past it the oldest go first. */
const MAX_KEPT = 10_000

export class TokenExchange {
  readonly #config: OAuthConfig
  readonly #metadata: IssuerMetadata
  readonly #kept = new Map<string, { token: string, until: number }>()
  readonly #pending = new Map<string, Promise<string>>()
  readonly #now: () => number

  constructor (config: OAuthConfig, metadata: IssuerMetadata, now: () => number = Date.now) {
    this.#config = config
    this.#metadata = metadata
    this.#now = now
  }

  /** The identity of `principal`, whose own access token is `subjectToken`. */
  identityOf (principal: string, subjectToken: string): CallerIdentity {
    return { principal, exchange: async (audience, scope) => await this.#exchange(principal, subjectToken, audience, scope) }
  }

  async #exchange (principal: string, subjectToken: string, audience: string, scope: string | undefined): Promise<string> {
    const key = `${principal}\n${audience}\n${scope ?? ''}`
    const kept = this.#kept.get(key)
    if (kept !== undefined && kept.until > this.#now()) return kept.token
    let pending = this.#pending.get(key)
    if (pending === undefined) {
      pending = this.#request(subjectToken, audience, scope).then(({ token, lifetimeMs }) => {
        this.#keep(key, token, this.#now() + Math.max(0, lifetimeMs - MARGIN_MS))
        return token
      }).finally(() => { this.#pending.delete(key) })
      this.#pending.set(key, pending)
    }
    return await pending
  }

  async #request (subjectToken: string, audience: string, scope: string | undefined): Promise<{ token: string, lifetimeMs: number }> {
    const client = this.#config.client
    if (client === undefined) throw new Error('token exchange needs auth.oauth.client (OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET), the gateway\'s client at the provider')
    const metadata = await this.#metadata.get()
    const parameters = new URLSearchParams({ subject_token: subjectToken, subject_token_type: ACCESS_TOKEN_TYPE, requested_token_type: ACCESS_TOKEN_TYPE, audience })
    if (scope !== undefined) parameters.set('scope', scope)
    try {
      const response = await oauth.genericTokenEndpointRequest(metadata, { client_id: client.id }, oauth.ClientSecretBasic(client.secret), GRANT_TYPE, parameters, providerRequestOptions(this.#config))
      const answer = await oauth.processGenericTokenEndpointResponse(metadata, { client_id: client.id }, response)
      return { token: answer.access_token, lifetimeMs: typeof answer.expires_in === 'number' ? answer.expires_in * 1000 : DEFAULT_LIFETIME_MS }
    } catch (err) {
      throw new Error(`the identity provider ${metadata.issuer} refused to exchange the caller's token for one addressed to ${audience}: ${providerMessage(err)}`, { cause: err })
    }
  }

  #keep (key: string, token: string, until: number): void {
    if (until <= this.#now()) return
    if (this.#kept.size >= MAX_KEPT) this.#kept.delete(this.#kept.keys().next().value as string)
    this.#kept.set(key, { token, until })
  }
}
