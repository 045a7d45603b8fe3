// The oidc-provider configuration of the test identity provider: resource indicators with JWT (or
// opaque) access tokens, client credentials, authorization code with PKCE always required, open
// dynamic registration, introspection, and the token-exchange grant (registered after construction).
import { errors, type Client, type KoaContext, type ResourceServerInfo } from 'oidc-provider'
import { TOKEN_EXCHANGE, type IdpState } from './state.ts'

interface TokenView { readonly accountId?: string, readonly clientId: string, readonly gty?: string, readonly resourceServer?: { readonly accessTokenTTL?: number } }

/** What the provider answers for a resource indicator (or a token-exchange audience); unknown ones are invalid_target. */
export function resourceServerInfo (state: IdpState, indicator: string): ResourceServerInfo {
  if (!state.audiences.has(indicator)) throw new errors.InvalidTarget(`unknown resource or audience ${indicator}`)
  return {
    scope: state.scopes.join(' '),
    accessTokenFormat: state.accessTokenFormat,
    accessTokenTTL: state.accessTokenTtl,
    jwt: { sign: { alg: state.alg } }
  }
}

function staticClients (state: IdpState): Array<Record<string, unknown>> {
  return [
    {
      // The gateway's own client: introspection and token exchange (auth.oauth.client).
      client_id: state.gatewayClient.id,
      client_secret: state.gatewayClient.secret,
      grant_types: ['client_credentials', TOKEN_EXCHANGE],
      response_types: [],
      redirect_uris: []
    },
    {
      // A machine caller (the MCP SDK's ClientCredentialsProvider uses client_secret_basic, the default here).
      client_id: state.agentClient.id,
      client_secret: state.agentClient.secret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      scope: state.scopes.join(' ')
    }
  ]
}

async function extraTokenClaims (state: IdpState, token: TokenView): Promise<Record<string, unknown> | undefined> {
  const account = token.accountId === undefined ? undefined : state.accounts.get(token.accountId)
  const claims: Record<string, unknown> = { ...account?.claims }
  if (account?.groups !== undefined) claims.groups = account.groups
  if (account?.email !== undefined) claims.email = account.email
  // RFC 8693 §4.1: the party that exchanged the token acts for the subject.
  if (token.gty === TOKEN_EXCHANGE) claims.act = { sub: token.clientId }
  return Object.keys(claims).length > 0 ? claims : undefined
}

export function providerConfiguration (state: IdpState): Record<string, unknown> {
  const ttl = (_ctx: unknown, token: TokenView): number => token.resourceServer?.accessTokenTTL ?? state.accessTokenTtl
  return {
    adapter: (model: string) => state.store.adapterFor(model),
    jwks: { keys: state.keys.map((key) => key.privateJwk) },
    clients: staticClients(state),
    // Resource scopes are listed too: discovery advertises them, and registration refuses a client
    // whose `scope` names one the server does not list (the MCP SDK registers with its scope).
    scopes: ['openid', 'offline_access', ...state.scopes],
    clientDefaults: { id_token_signed_response_alg: state.alg },
    findAccount: async (_ctx: unknown, id: string) => {
      if (!state.accounts.has(id)) return undefined
      return { accountId: id, claims: () => ({ sub: id }) }
    },
    extraTokenClaims: async (_ctx: unknown, token: TokenView) => await extraTokenClaims(state, token),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    features: {
      // Replaced by the harness's automatic login and consent (auto-interaction.ts).
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // Open registration, as MCP clients expect (RFC 7591 without an initial access token).
      registration: { enabled: true },
      introspection: {
        enabled: true,
        allowedPolicy: async (_ctx: unknown, client: Client) => client.clientAuthMethod !== 'none'
      },
      resourceIndicators: {
        enabled: true,
        // A client that names no resource gets a token for the gateway, as with an issuer's default audience.
        defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string[]) =>
          oneOf === undefined || oneOf.includes(state.resource) ? state.resource : oneOf,
        // The token request may omit `resource` and get the one granted (an openid scope would otherwise
        // turn it into a userinfo token).
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, indicator: string) => resourceServerInfo(state, indicator)
      }
    },
    ttl: {
      AccessToken: ttl,
      ClientCredentials: ttl,
      AuthorizationCode: 60,
      IdToken: 300,
      RefreshToken: 3600,
      Interaction: 300,
      Session: 3600,
      Grant: 3600
    },
    // JSON instead of an HTML page: a test that fails mid-flow prints why.
    renderError: async (ctx: KoaContext, out: Record<string, unknown>) => {
      ctx.type = 'application/json'
      ctx.body = out
    },
    // Cross-origin calls only from the origins a test names (a browser app's page, e.g. the console).
    clientBasedCORS: (_ctx: unknown, origin: string) => state.corsOrigins.has(origin)
  }
}
