// RFC 8693 token exchange at the test identity provider: an authenticated confidential client (the
// gateway) presents a user's access token addressed to the gateway and gets one for another audience,
// with the same `sub`, a scope no wider than the subject token's, and `act` naming the client.
import { createLocalJWKSet, jwtVerify } from 'jose'
import { errors, type GrantTypeHandler, type Provider } from 'oidc-provider'
import { resourceServerInfo } from './provider-config.ts'
import { TOKEN_EXCHANGE, type IdpState } from './state.ts'

const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token'
const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt'

export const TOKEN_EXCHANGE_PARAMETERS = [
  'audience', 'resource', 'scope', 'requested_token_type', 'subject_token', 'subject_token_type', 'actor_token', 'actor_token_type'
]

interface Subject { sub: string, scope: string[], aud: string[] }

const asList = (value: unknown): string[] => Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : []
// invalid_grant with the reason in error_description (errors.InvalidGrant sends a fixed one).
const invalidGrant = (description: string): Error => new errors.CustomOIDCProviderError('invalid_grant', description)
const single = (value: string | string[] | undefined): string | undefined => Array.isArray(value) ? value[0] : value

/** The subject token, verified as this provider's own: a JWT against its current keys, an opaque one in its store. */
async function verifySubject (state: IdpState, provider: Provider, token: string): Promise<Subject> {
  if (token.split('.').length === 3) {
    try {
      const keys = createLocalJWKSet({ keys: state.keys.map((key) => key.publicJwk) })
      const { payload } = await jwtVerify(token, keys, { issuer: provider.issuer, typ: 'at+jwt', algorithms: [state.alg] })
      return { sub: String(payload.sub), scope: String(payload.scope ?? '').split(' ').filter(Boolean), aud: asList(payload.aud) }
    } catch (error) {
      throw invalidGrant(`subject_token is not a valid access token of this issuer: ${(error as Error).message}`)
    }
  }
  const stored = await provider.AccessToken.find(token)
  if (stored === undefined || !stored.isValid || stored.accountId === undefined) {
    throw invalidGrant('subject_token is not an active access token of this issuer')
  }
  return { sub: stored.accountId, scope: (stored.scope ?? '').split(' ').filter(Boolean), aud: asList(stored.aud) }
}

function checkRequest (params: Record<string, string | string[] | undefined>): { subjectToken: string, audience: string } {
  const subjectToken = single(params.subject_token)
  if (subjectToken === undefined || subjectToken === '') throw new errors.InvalidRequest('missing required parameter \'subject_token\'')
  const type = single(params.subject_token_type)
  if (type !== ACCESS_TOKEN_TYPE && type !== JWT_TOKEN_TYPE) throw new errors.InvalidRequest(`unsupported subject_token_type ${String(type)}`)
  const requested = single(params.requested_token_type)
  if (requested !== undefined && requested !== ACCESS_TOKEN_TYPE) throw new errors.InvalidRequest('only access tokens are issued')
  if (params.actor_token !== undefined) throw new errors.InvalidRequest('actor_token is not supported')
  const audience = single(params.audience) ?? single(params.resource)
  if (audience === undefined || audience === '') throw new errors.InvalidTarget('audience (or resource) is required')
  return { subjectToken, audience }
}

export function tokenExchangeGrant (state: IdpState, provider: Provider): GrantTypeHandler {
  return async (ctx) => {
    const { params, client } = ctx.oidc
    // A public client cannot act for a user: it has proven nothing about itself.
    if (client === undefined || client.clientAuthMethod === 'none') throw new errors.UnauthorizedClient('token exchange needs an authenticated client')
    const { subjectToken, audience } = checkRequest(params)
    const subject = await verifySubject(state, provider, subjectToken)
    // Only a token addressed to the gateway can be exchanged by it (no laundering of other audiences' tokens).
    if (!subject.aud.includes(state.resource)) throw invalidGrant(`subject_token is not addressed to ${state.resource}`)
    if (!state.accounts.has(subject.sub)) throw invalidGrant('subject_token does not name a user of this issuer')
    const info = resourceServerInfo(state, audience)
    const requestedScope = single(params.scope)?.split(' ').filter(Boolean) ?? subject.scope
    const beyond = requestedScope.filter((scope) => !subject.scope.includes(scope))
    if (beyond.length > 0) throw new errors.InvalidScope('requested scope exceeds the subject token\'s', beyond.join(' '))
    const token = new provider.AccessToken({ accountId: subject.sub, client, gty: TOKEN_EXCHANGE })
    token.resourceServer = new provider.ResourceServer(audience, info)
    token.scope = requestedScope.filter((scope) => info.scope.split(' ').includes(scope)).join(' ') || undefined
    ctx.oidc.entity('AccessToken', token)
    ctx.body = {
      access_token: await token.save(),
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      expires_in: token.expiration,
      scope: token.scope
    }
  }
}
