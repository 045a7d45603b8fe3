// A real OpenID provider for the gateway's OAuth tests: oidc-provider (OpenID-certified) on 127.0.0.1,
// plain http, random port, closed in t.after. It issues RFC 9068 JWT access tokens for the gateway's
// resource (or opaque ones to introspect), by client credentials, by authorization code with PKCE
// for dynamically registered clients (login and consent answered automatically), and by RFC 8693
// token exchange; it can rotate its signing key, be slowed, fail, or stop and start on the same port.
import type { JWK } from 'jose'
import { Provider } from 'oidc-provider'
import { accessTokenClaims, signToken } from './forged-tokens.ts'
import { answerInteraction } from './idp/auto-interaction.ts'
import { codeFlowToken, registerPublicClient, type CodeFlowOptions } from './idp/code-flow.ts'
import { followAuthorization, type FollowOptions } from './idp/follow-authorization.ts'
import { startFrontServer, type RequestRecord } from './idp/front-server.ts'
import { providerConfiguration } from './idp/provider-config.ts'
import { newSigningKey, type SigningKey } from './idp/signing-keys.ts'
import { createState, TOKEN_EXCHANGE, type ClientCredentials, type IdentityAccount, type IdentityProviderOptions, type IdpState } from './idp/state.ts'
import { TOKEN_EXCHANGE_PARAMETERS, tokenExchangeGrant } from './idp/token-exchange.ts'
import { postForm, registerClient, tokenFrom, type OAuthAnswer, type TokenResponse } from './idp/token-requests.ts'

export { tokenFrom, TOKEN_EXCHANGE }
export type { ClientCredentials, CodeFlowOptions, FollowOptions, IdentityAccount, IdentityProviderOptions, OAuthAnswer, RequestRecord, SigningKey, TokenResponse }

export interface IdentityProvider {
  /** `http://127.0.0.1:<port>`, no trailing slash: what `auth.oauth.issuer` and `authorization_servers` must say. */
  readonly issuer: string
  readonly port: number
  /** The gateway's resource identifier the provider was started with (`aud` of its tokens). */
  readonly resource: string
  readonly discoveryUrl: string
  /** RFC 8414 metadata (`/.well-known/oauth-authorization-server`), the same document as discovery. */
  readonly metadataUrl: string
  readonly jwksUri: string
  readonly authorizationEndpoint: string
  readonly tokenEndpoint: string
  readonly registrationEndpoint: string
  readonly introspectionEndpoint: string
  /** Confidential client for the gateway itself: introspection, token exchange, client credentials. */
  readonly gatewayClient: ClientCredentials
  /** Confidential client_credentials client, allowed every resource scope (for ClientCredentialsProvider). */
  readonly agentClient: ClientCredentials
  /** Users by id; change them freely (new tokens see the change). */
  readonly accounts: Map<string, IdentityAccount>
  /** Every request received, in order (path without query). */
  readonly requests: readonly RequestRecord[]
  /** Errors the provider answered 500 for; a passing test expects none. */
  readonly serverErrors: readonly Error[]
  setAccessTokenFormat: (format: 'jwt' | 'opaque') => void
  addAudience: (audience: string) => void
  /** Holds requests (all, or those whose path starts with one of `paths`) `ms` before answering; 0 ends it. */
  setDelay: (ms: number, paths?: readonly string[]) => void
  /** Answers `status` (e.g. 503) instead; undefined ends it. */
  setFailure: (status: number | undefined, paths?: readonly string[]) => void
  /** A new signing key with a new kid signs from now on; the old keys stay published only if `keepOld`. */
  rotateKeys: (options?: { keepOld?: boolean }) => Promise<SigningKey>
  /** The key signing now (for forged-tokens.ts). */
  signingKey: () => SigningKey
  publicJwks: () => { keys: JWK[] }
  /**
   * An access token signed locally with the current key, shaped as the provider's own (typ at+jwt, iss,
   * aud = resource, sub = loginAs, scope and groups of that account, client_id agent); `claims`
   * override (undefined removes one), `header` adds header fields. Use it for expired or wrong-claim
   * tokens with a good signature; use the grants for tokens the provider really issued.
   */
  mintToken: (claims?: Record<string, unknown>, header?: Record<string, unknown>) => Promise<string>
  /** Plays the browser for an authorization URL (e.g. from an MCP SDK client); returns the redirect_uri URL reached. */
  authorize: (authorizationUrl: string | URL, options?: FollowOptions) => Promise<URL>
  /** A user's token through the whole code flow (a public client registered once, PKCE). */
  userToken: (options?: CodeFlowOptions) => Promise<TokenResponse>
  tokenRequest: (params: Record<string, string>, client?: ClientCredentials) => Promise<OAuthAnswer>
  clientCredentials: (options?: { client?: ClientCredentials, scope?: string, resource?: string }) => Promise<TokenResponse>
  /** RFC 8693 as the gateway makes it (default client: gatewayClient); the raw answer, for refusals too. */
  exchangeToken: (subjectToken: string, options: { audience: string, scope?: string, client?: ClientCredentials }) => Promise<OAuthAnswer>
  /** RFC 7662 as the gateway makes it (default client: gatewayClient). */
  introspect: (token: string, client?: ClientCredentials) => Promise<OAuthAnswer>
  /** RFC 7591 registration with any metadata. */
  register: (metadata: Record<string, unknown>) => Promise<OAuthAnswer>
  /** Closes the port (connections refused) until start(). */
  stop: () => Promise<void>
  start: () => Promise<void>
  close: () => Promise<void>
}

interface TestContext { after: (fn: () => Promise<void> | void) => void }

function buildProvider (issuer: string, state: IdpState): Provider {
  const provider = new Provider(issuer, providerConfiguration(state))
  provider.registerGrantType(TOKEN_EXCHANGE, tokenExchangeGrant(state, provider), TOKEN_EXCHANGE_PARAMETERS)
  provider.on('server_error', (_ctx, error) => { state.serverErrors.push(error) })
  return provider
}

export async function startIdentityProvider (t: TestContext, options: IdentityProviderOptions): Promise<IdentityProvider> {
  const state = createState(options, [await newSigningKey(options.alg ?? 'RS256')])
  let provider: Provider | undefined
  let handle: ReturnType<Provider['callback']> | undefined
  // The server listens first: the issuer names its port.
  const front = await startFrontServer(async (req, res, path) => {
    if (provider === undefined || handle === undefined) throw new Error('the identity provider is not ready')
    if (path.startsWith('/interaction/')) return await answerInteraction(state, provider, req, res)
    await handle(req, res)
  }, options.startupTimeoutMs ?? 5000)
  t.after(front.stop)
  const issuer = `http://127.0.0.1:${front.port}`
  const rebuild = (): void => {
    provider = buildProvider(issuer, state)
    handle = provider.callback()
  }
  rebuild()
  const endpoints = {
    issuer,
    authorizationEndpoint: `${issuer}/auth`,
    tokenEndpoint: `${issuer}/token`,
    registrationEndpoint: `${issuer}/reg`
  }
  let publicClient: Promise<string> | undefined
  const gatewayClient = state.gatewayClient
  const tokenRequest = async (params: Record<string, string>, client?: ClientCredentials): Promise<OAuthAnswer> =>
    await postForm(endpoints.tokenEndpoint, params, client)

  return {
    ...endpoints,
    port: front.port,
    resource: state.resource,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    metadataUrl: `${issuer}/.well-known/oauth-authorization-server`,
    jwksUri: `${issuer}/jwks`,
    introspectionEndpoint: `${issuer}/token/introspection`,
    gatewayClient,
    agentClient: state.agentClient,
    accounts: state.accounts,
    requests: front.requests,
    serverErrors: state.serverErrors,
    setAccessTokenFormat: (format) => { state.accessTokenFormat = format },
    addAudience: (audience) => { state.audiences.add(audience) },
    setDelay: front.setDelay,
    setFailure: front.setFailure,
    rotateKeys: async ({ keepOld = false } = {}) => {
      const key = await newSigningKey(state.alg)
      state.keys = keepOld ? [key, ...state.keys] : [key]
      // oidc-provider reads its keys once; a new instance over the same store keeps every grant and client.
      rebuild()
      return key
    },
    signingKey: () => state.keys[0],
    publicJwks: () => ({ keys: state.keys.map((key) => key.publicJwk) }),
    mintToken: async (claims = {}, header = {}) => {
      const sub = typeof claims.sub === 'string' ? claims.sub : state.loginAs
      const account = state.accounts.get(sub)
      const base = accessTokenClaims({ issuer, audience: state.resource, sub, scope: (account?.scopes ?? state.scopes).join(' '), clientId: state.agentClient.id, ttl: state.accessTokenTtl })
      const extra = { ...account?.claims, groups: account?.groups, email: account?.email }
      return await signToken(state.keys[0], { ...base, ...extra, ...claims }, header)
    },
    authorize: async (authorizationUrl, followOptions) => await followAuthorization(authorizationUrl, issuer, followOptions),
    userToken: async (flow = {}) => {
      publicClient ??= registerPublicClient(endpoints)
      const scope = flow.scope ?? ['openid', ...state.scopes].join(' ')
      return await codeFlowToken(endpoints, await publicClient, { ...flow, scope, resource: flow.resource ?? state.resource })
    },
    tokenRequest,
    clientCredentials: async ({ client = state.agentClient, scope = state.scopes.join(' '), resource = state.resource } = {}) =>
      tokenFrom(await tokenRequest({ grant_type: 'client_credentials', scope, resource }, client)),
    exchangeToken: async (subjectToken, { audience, scope, client = gatewayClient }) => await tokenRequest({
      grant_type: TOKEN_EXCHANGE,
      subject_token: subjectToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      audience,
      ...(scope === undefined ? {} : { scope })
    }, client),
    introspect: async (token, client = gatewayClient) => await postForm(`${issuer}/token/introspection`, { token }, client),
    register: async (metadata) => await registerClient(endpoints.registrationEndpoint, metadata),
    stop: front.stop,
    start: front.start,
    close: front.stop
  }
}
