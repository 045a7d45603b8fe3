// The WWW-Authenticate answer to a request without a usable credential (RFC 6750, RFC 9728): where
// the gateway's protected-resource metadata is, so that an OAuth client (claude.ai, ChatGPT, Cursor,
// the MCP SDKs) finds its identity provider; the scopes it may ask for; and, for a token that was
// presented and refused, why.
import type { OAuthConfig } from '../config/schema.ts'

/** Where RFC 9728 puts the metadata of `resource`: the well-known path inserted before its path. */
export function resourceMetadataUrl (resource: string): string {
  const url = new URL(resource)
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '')
  return `${url.origin}/.well-known/oauth-protected-resource${path}`
}

/** A quoted-string of RFC 9110: what a description may not hold is dropped, not escaped into something else. */
function quoted (value: string): string {
  return `"${value.replace(/[^\x20-\x7e]/g, '').replace(/["\\]/g, '')}"`
}

export interface ChallengeError {
  readonly error: 'invalid_token' | 'insufficient_scope'
  readonly description: string
}

/** The header for a request to `path`; `refused` when a token was presented and refused. */
export function bearerChallenge (oauth: OAuthConfig | undefined, path: string, refused?: ChallengeError): string {
  const parts = ['realm="tool-gateway"']
  if (oauth !== undefined) {
    // The /mcp endpoint's own document names the resource MCP clients connect to; other routes the gateway's root.
    const resource = path === '/mcp' || path.startsWith('/mcp?') ? oauth.resource : new URL(oauth.resource).origin
    parts.push(`resource_metadata=${quoted(resourceMetadataUrl(resource))}`)
    const scopes = Object.keys(oauth.scopes)
    if (scopes.length > 0) parts.push(`scope=${quoted(scopes.join(' '))}`)
  }
  if (refused !== undefined) parts.push(`error=${quoted(refused.error)}`, `error_description=${quoted(refused.description)}`)
  return `Bearer ${parts.join(', ')}`
}
