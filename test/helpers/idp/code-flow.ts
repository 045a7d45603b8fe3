// The whole authorization code flow with PKCE as a public client registered dynamically (RFC 7591),
// the way an MCP client signs a user in: register → authorize (login and consent answered by the
// harness) → code → token. Gives tests a real user token in one call.
import { createHash, randomBytes } from 'node:crypto'
import { followAuthorization, type FollowOptions } from './follow-authorization.ts'
import { postForm, registerClient, tokenFrom, type TokenResponse } from './token-requests.ts'

export interface CodeFlowEndpoints {
  readonly issuer: string
  readonly authorizationEndpoint: string
  readonly tokenEndpoint: string
  readonly registrationEndpoint: string
}

export interface CodeFlowOptions extends FollowOptions {
  /** Default 'openid' and every resource scope. */
  scope?: string
  /** Default the gateway's resource. */
  resource?: string
}

// Never contacted: the walk stops at the first redirect that leaves the provider.
const REDIRECT_URI = 'http://127.0.0.1/callback'

export function pkcePair (): { verifier: string, challenge: string } {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

export async function registerPublicClient (endpoints: CodeFlowEndpoints): Promise<string> {
  const answer = await registerClient(endpoints.registrationEndpoint, {
    application_type: 'native',
    client_name: 'test MCP client',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none'
  })
  if (answer.status !== 201 || typeof answer.body.client_id !== 'string') {
    throw new Error(`registration refused (HTTP ${answer.status}): ${JSON.stringify(answer.body)}`)
  }
  return answer.body.client_id
}

export async function codeFlowToken (endpoints: CodeFlowEndpoints, clientId: string, options: CodeFlowOptions & { scope: string, resource: string }): Promise<TokenResponse> {
  const { verifier, challenge } = pkcePair()
  const state = randomBytes(8).toString('base64url')
  const url = new URL(endpoints.authorizationEndpoint)
  url.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    scope: options.scope,
    resource: options.resource,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256'
  }).toString()
  const callback = await followAuthorization(url, new URL(endpoints.issuer).origin, options)
  const code = callback.searchParams.get('code')
  if (code === null || callback.searchParams.get('state') !== state) {
    throw new Error(`authorization ended without a code: ${callback.href}`)
  }
  return tokenFrom(await postForm(endpoints.tokenEndpoint, {
    grant_type: 'authorization_code',
    client_id: clientId,
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
    resource: options.resource
  }))
}
