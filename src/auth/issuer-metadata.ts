// The identity provider's metadata (issuer, jwks_uri, introspection and token endpoints), found as
// OAuth 2.0 Authorization Server Metadata (RFC 8414), else OpenID discovery, by oauth4webapi, which
// also checks that the document names the configured issuer. Asked on first need, not at start (a
// provider that is down must not keep the gateway from serving API keys), kept once found, and
// after a failure not asked again for a short while, so a provider that is down costs each
// request a quick refusal rather than a wait.
import * as oauth from 'oauth4webapi'
import type { OAuthConfig } from '../config/schema.ts'
import { IdentityProviderUnavailableError } from '../shared/errors.ts'
import { providerMessage } from './provider-errors.ts'

/** After a failed discovery, requests are refused this long before the provider is asked again. */
const RETRY_AFTER_FAILURE_MS = 5_000

/** oauth4webapi's options for requests to a provider: the deadline, and plain http only for an http issuer (loopback tests). */
export function providerRequestOptions (config: Pick<OAuthConfig, 'issuer' | 'requestTimeoutMs'>): { signal: AbortSignal, [oauth.allowInsecureRequests]?: boolean } {
  const signal = AbortSignal.timeout(config.requestTimeoutMs)
  return new URL(config.issuer).protocol === 'http:' ? { signal, [oauth.allowInsecureRequests]: true } : { signal }
}

export class IssuerMetadata {
  readonly #config: OAuthConfig
  #found: oauth.AuthorizationServer | undefined
  #pending: Promise<oauth.AuthorizationServer> | undefined
  #failure: { at: number, message: string } | undefined
  readonly #now: () => number

  constructor (config: OAuthConfig, now: () => number = Date.now) {
    this.#config = config
    this.#now = now
  }

  /** The metadata; throws IdentityProviderUnavailableError naming why it cannot be had. */
  async get (): Promise<oauth.AuthorizationServer> {
    if (this.#found !== undefined) return this.#found
    const failure = this.#failure
    if (failure !== undefined && this.#now() - failure.at < RETRY_AFTER_FAILURE_MS) throw this.#unavailable(failure.message)
    this.#pending ??= this.#discover().finally(() => { this.#pending = undefined })
    return await this.#pending
  }

  async #discover (): Promise<oauth.AuthorizationServer> {
    const issuer = new URL(this.#config.issuer)
    const problems: string[] = []
    for (const algorithm of ['oauth2', 'oidc'] as const) {
      try {
        const response = await oauth.discoveryRequest(issuer, { ...providerRequestOptions(this.#config), algorithm })
        this.#found = await oauth.processDiscoveryResponse(issuer, response)
        this.#failure = undefined
        return this.#found
      } catch (err) {
        problems.push(`${algorithm === 'oauth2' ? 'RFC 8414' : 'OpenID'} discovery: ${providerMessage(err)}`)
      }
    }
    const message = problems.join('; ')
    this.#failure = { at: this.#now(), message }
    throw this.#unavailable(message)
  }

  #unavailable (why: string): Error {
    return new IdentityProviderUnavailableError(`the identity provider ${this.#config.issuer} could not be asked for its metadata (${why}); API keys still work`)
  }
}
