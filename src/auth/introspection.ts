// An opaque access token checked at the provider's introspection endpoint (RFC 7662), the gateway
// authenticating as its own client (auth.oauth.client, HTTP Basic). oauth4webapi sends the request
// and checks the answer's shape.
import * as oauth from 'oauth4webapi'
import type { OAuthConfig } from '../config/schema.ts'
import { providerMessage } from './provider-errors.ts'
import { providerRequestOptions } from './issuer-metadata.ts'
import type { TokenClaims, TokenVerdict } from './verdict.ts'

export async function introspect (config: OAuthConfig, metadata: oauth.AuthorizationServer, token: string): Promise<TokenVerdict> {
  const client = config.client
  if (client === undefined || metadata.introspection_endpoint === undefined) {
    return { refusal: { status: 503, description: `the provider ${metadata.issuer} has no introspection endpoint, or no auth.oauth.client is set to call it`, guess: false } }
  }
  let answer: oauth.IntrospectionResponse
  try {
    const response = await oauth.introspectionRequest(metadata, { client_id: client.id }, oauth.ClientSecretBasic(client.secret), token, providerRequestOptions(config))
    answer = await oauth.processIntrospectionResponse(metadata, { client_id: client.id }, response)
  } catch (err) {
    return { refusal: { status: 503, description: `the provider ${metadata.issuer} could not introspect the token (${providerMessage(err)})`, guess: false } }
  }
  // An inactive token is unknown, revoked or expired: the provider says no more, nor do we.
  if (!answer.active) return { refusal: { status: 401, description: 'the token is not active at the provider (unknown, revoked or expired)', guess: true } }
  return { claims: answer as unknown as TokenClaims }
}
