// An OAuthClientProvider for the official MCP SDK client whose "browser" is the test identity provider's
// browserless walk: the SDK registers itself (RFC 7591), builds the PKCE authorization URL and calls
// redirectToAuthorization; the walk signs the user in, consents, and keeps the callback URL, which the
// test hands to transport.finishAuth(client.callback.searchParams) (or to auth() as code and iss).
import { randomBytes } from 'node:crypto'
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens
} from '@modelcontextprotocol/client'

// Never contacted: the walk stops when a redirect leaves the provider.
const REDIRECT_URL = 'http://127.0.0.1/mcp-client/callback'

export class BrowserlessOAuthClient implements OAuthClientProvider {
  /** Where the authorization ended (code, state, iss), once redirectToAuthorization has run. */
  callback: URL | undefined
  readonly #walk: (authorizationUrl: URL) => Promise<URL>
  readonly #scope: string | undefined
  #client: StoredOAuthClientInformation | undefined
  #tokens: StoredOAuthTokens | undefined
  #verifier = ''
  #discovery: OAuthDiscoveryState | undefined

  /** `walk` is usually `(url) => idp.authorize(url, { account: 'bob' })`. */
  constructor (walk: (authorizationUrl: URL) => Promise<URL>, options: { scope?: string } = {}) {
    this.#walk = walk
    this.#scope = options.scope
  }

  get redirectUrl (): string { return REDIRECT_URL }

  get clientMetadata (): OAuthClientMetadata {
    return {
      client_name: 'tool-gateway test MCP client',
      redirect_uris: [REDIRECT_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.#scope === undefined ? {} : { scope: this.#scope })
    }
  }

  state (): string { return randomBytes(8).toString('base64url') }
  clientInformation (): StoredOAuthClientInformation | undefined { return this.#client }
  saveClientInformation (information: StoredOAuthClientInformation): void { this.#client = information }
  tokens (): StoredOAuthTokens | undefined { return this.#tokens }
  saveTokens (tokens: StoredOAuthTokens): void { this.#tokens = tokens }
  saveCodeVerifier (verifier: string): void { this.#verifier = verifier }
  codeVerifier (): string { return this.#verifier }
  // Kept so the SDK can check, when the code comes back, that it goes to the server it came from (SEP-2352).
  saveDiscoveryState (state: OAuthDiscoveryState): void { this.#discovery = state }
  discoveryState (): OAuthDiscoveryState | undefined { return this.#discovery }

  async redirectToAuthorization (authorizationUrl: URL): Promise<void> {
    this.callback = await this.#walk(authorizationUrl)
  }
}
