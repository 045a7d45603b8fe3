// What the console page is told to sign a person in (GET /console/config.json): whether API keys
// work, and the public OAuth client registered for it with the provider's endpoints. Only what the
// identity provider publishes anyway and the public client's id: never the gateway's own client
// secret, nor anything of the keys.
import type { TokenSignIn } from '../auth/token-sign-in.ts'
import { GATEWAY_IDENTITY } from '../shared/version.ts'
import { NO_PROVIDER, originOf, type ProviderOrigins } from './headers.ts'

export interface ConsoleOAuth {
  issuer: string
  clientId: string
  scopes: string[]
  resource: string
  authorizationEndpoint: string
  tokenEndpoint: string
}

export interface ConsoleClientConfig {
  auth: {
    keys: boolean
    open: boolean
    oauth: ConsoleOAuth | null
  }
  oauthError?: string
  version: string
}

export interface ConsoleSignIn {
  oauth: ConsoleOAuth | null
  oauthError?: string
  /** The provider's origins the page's Content-Security-Policy must allow. */
  origins: ProviderOrigins
}

function scopesToAsk (scopes: Readonly<Record<string, unknown>>, adminScope: string | undefined): string[] {
  const names = Object.keys(scopes)
  return adminScope === undefined || names.includes(adminScope) ? names : [...names, adminScope]
}

function originsOf (urls: ReadonlyArray<string | undefined>): string[] {
  return urls.map(originOf).filter((origin) => origin !== undefined)
}

/**
 * The sign-in the console offers through `tokens` (undefined without auth.oauth). Asks the provider
 * for its metadata when not yet known (IssuerMetadata keeps it, and answers a provider that is down
 * quickly for a while).
 */
export async function consoleSignIn (tokens: TokenSignIn | undefined): Promise<ConsoleSignIn> {
  const config = tokens?.config
  const clientId = config?.consoleClientId
  if (tokens === undefined || config === undefined || clientId === undefined) return { oauth: null, origins: NO_PROVIDER }
  const issuerOnly: ProviderOrigins = { connect: originsOf([config.issuer]), form: originsOf([config.issuer]) }
  let metadata
  try {
    metadata = await tokens.metadata.get()
  } catch (err) {
    return { oauth: null, oauthError: (err as Error).message, origins: issuerOnly }
  }
  const authorizationEndpoint = metadata.authorization_endpoint
  const tokenEndpoint = metadata.token_endpoint
  if (authorizationEndpoint === undefined || tokenEndpoint === undefined) {
    return { oauth: null, oauthError: `the identity provider ${config.issuer} announces no ${authorizationEndpoint === undefined ? 'authorization_endpoint' : 'token_endpoint'}`, origins: issuerOnly }
  }
  return {
    // The admin scope too: an operator signing in gets it (the provider decides who may have it).
    oauth: { issuer: config.issuer, clientId, scopes: scopesToAsk(config.scopes, config.adminScope), resource: config.resource, authorizationEndpoint, tokenEndpoint },
    origins: {
      connect: originsOf([config.issuer, tokenEndpoint]),
      form: originsOf([config.issuer, authorizationEndpoint])
    }
  }
}

export function consoleClientConfig (signIn: ConsoleSignIn, keys: boolean, open: boolean): ConsoleClientConfig {
  return {
    auth: { keys, open, oauth: signIn.oauth },
    ...(signIn.oauthError === undefined ? {} : { oauthError: signIn.oauthError }),
    version: GATEWAY_IDENTITY.version
  }
}
