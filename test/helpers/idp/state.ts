// What the test identity provider knows, shared by its configuration, its automatic login and
// consent, and its token-exchange grant; tests change it at run time (accounts, token format).
import { randomBytes } from 'node:crypto'
import { MemoryStore } from './memory-store.ts'
import type { SigningAlg, SigningKey } from './signing-keys.ts'

export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange'

/** A user at the provider. Its id (the key in `accounts`) is the `sub` of its tokens. */
export interface IdentityAccount {
  /** Put in access tokens (and introspection answers) as the `groups` claim. */
  groups?: string[]
  email?: string
  /** The resource scopes consent grants this user (the rest asked for are refused); all when absent. */
  scopes?: string[]
  /** More claims for this user's access tokens. */
  claims?: Record<string, unknown>
}

export interface IdentityProviderOptions {
  /** The gateway's resource identifier (RFC 8707): the `aud` of its tokens, the default `resource`. */
  resource: string
  /** Other audiences tokens may be issued for, e.g. upstream MCP servers reached by token exchange. */
  audiences?: readonly string[]
  /** Resource scopes; default tools:file, tools:web, tools:all. openid and offline_access are always there. */
  scopes?: readonly string[]
  /** Users by id; default alice (eng, every scope), bob (sales, tools:web), carol (no tool scope). */
  accounts?: Record<string, IdentityAccount>
  /** The user the automatic login signs in when the test names none; default the first account. */
  loginAs?: string
  /** 'jwt' (RFC 9068, default) or 'opaque' (to be introspected, RFC 7662). */
  accessTokenFormat?: 'jwt' | 'opaque'
  /** Access token lifetime in seconds; default 300. */
  accessTokenTtl?: number
  alg?: SigningAlg
  /** Bound on listening; default 5 000 ms. */
  startupTimeoutMs?: number
  /** Web origins whose pages may call the token endpoint (CORS), as a browser app does; default none. */
  corsOrigins?: readonly string[]
}

export interface ClientCredentials { readonly id: string, readonly secret: string }

export interface IdpState {
  readonly resource: string
  readonly audiences: Set<string>
  readonly scopes: readonly string[]
  readonly accounts: Map<string, IdentityAccount>
  loginAs: string
  accessTokenFormat: 'jwt' | 'opaque'
  readonly accessTokenTtl: number
  readonly alg: SigningAlg
  /** The first signs; the others are published for verification only. */
  keys: SigningKey[]
  readonly store: MemoryStore
  readonly gatewayClient: ClientCredentials
  readonly agentClient: ClientCredentials
  /** Errors oidc-provider answered 500 for, and failures of the automatic interaction. */
  readonly serverErrors: Error[]
  /** Origins allowed cross-origin requests (the console's page exchanging its code). */
  readonly corsOrigins: ReadonlySet<string>
}

export const DEFAULT_SCOPES = ['tools:file', 'tools:web', 'tools:all'] as const

export const DEFAULT_ACCOUNTS: Record<string, IdentityAccount> = {
  alice: { groups: ['eng'], email: 'alice@example.test' },
  bob: { groups: ['sales'], email: 'bob@example.test', scopes: ['tools:web'] },
  carol: { groups: [], email: 'carol@example.test', scopes: [] }
}

export function createState (options: IdentityProviderOptions, keys: SigningKey[]): IdpState {
  const accounts = new Map(Object.entries(options.accounts ?? DEFAULT_ACCOUNTS))
  const loginAs = options.loginAs ?? accounts.keys().next().value
  if (loginAs === undefined) throw new Error('the test identity provider needs at least one account')
  return {
    resource: options.resource,
    audiences: new Set([options.resource, ...options.audiences ?? []]),
    scopes: options.scopes ?? DEFAULT_SCOPES,
    accounts,
    loginAs,
    accessTokenFormat: options.accessTokenFormat ?? 'jwt',
    accessTokenTtl: options.accessTokenTtl ?? 300,
    alg: options.alg ?? 'RS256',
    keys,
    store: new MemoryStore(),
    // Random secrets: a test reads them from the harness instead of hard-coding one.
    gatewayClient: { id: 'gateway', secret: randomBytes(24).toString('base64url') },
    agentClient: { id: 'agent', secret: randomBytes(24).toString('base64url') },
    serverErrors: [],
    corsOrigins: new Set(options.corsOrigins ?? [])
  }
}

/** The scopes consent grants `accountId` out of `requested`. */
export function grantableScopes (state: IdpState, accountId: string, requested: readonly string[]): string[] {
  const allowed = state.accounts.get(accountId)?.scopes
  return allowed === undefined ? [...requested] : requested.filter((scope) => allowed.includes(scope))
}
