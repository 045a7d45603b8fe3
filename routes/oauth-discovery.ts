// OAuth discovery, public and never counted as failed logins (MCP clients probe these before they
// send any credential). With auth.oauth the gateway is a protected resource (RFC 9728): its
// metadata names the identity provider clients sign in with, the scopes to ask for and how to send
// the token; one document for the gateway's origin, one for the configured resource (`/mcp`). The
// provider's own metadata (RFC 8414, OpenID) and client registration (RFC 7591) live at the provider:
// asked here, they are a 404 that says where to go. Without auth.oauth every path is a 404 saying
// that this gateway takes API keys.
import type { FastifyPluginAsync } from 'fastify'
import { resourceMetadataUrl } from '../src/auth/challenge.ts'
import type { OAuthConfig } from '../src/config/schema.ts'
import { NotFoundError } from '../src/shared/errors.ts'

/** Well-known documents of RFC 9728, RFC 8414 and OpenID discovery, bare and per resource path. */
const WELL_KNOWN = ['oauth-protected-resource', 'oauth-authorization-server', 'openid-configuration']

/** The RFC 9728 document of `resource`, a resource of this gateway. */
function protectedResource (oauth: OAuthConfig, resource: string): Record<string, unknown> {
  return {
    resource,
    authorization_servers: [oauth.issuer],
    scopes_supported: Object.keys(oauth.scopes),
    bearer_methods_supported: ['header'],
    resource_name: 'tool-gateway'
  }
}

const oauthDiscoveryRoutes: FastifyPluginAsync = async (app) => {
  const oauth = app.gateway.config.auth.oauth
  const options = { config: { public: true, traced: false }, schema: { hide: true } }
  const nowhere = oauth === undefined
    ? 'this gateway does not offer OAuth sign-in: send an API key as Authorization: Bearer <key>'
    : `this gateway is an OAuth protected resource, not an authorization server: its metadata is at /.well-known/oauth-protected-resource, and sign-in (metadata, client registration) is at ${oauth.issuer}`
  const refuse = async (): Promise<never> => { throw new NotFoundError(nowhere) }
  // Documents by the path they are served at: the origin's and the configured resource's (the same when it has no path).
  const documents = new Map<string, Record<string, unknown>>()
  if (oauth !== undefined) {
    const { origin } = new URL(oauth.resource)
    for (const resource of [origin, oauth.resource]) documents.set(new URL(resourceMetadataUrl(resource)).pathname, protectedResource(oauth, resource))
  }
  for (const name of WELL_KNOWN) {
    const serve = name === 'oauth-protected-resource' && oauth !== undefined
      ? async (request: { url: string }) => {
        const document = documents.get(request.url.split('?')[0])
        if (document === undefined) return await refuse()
        return document
      }
      : refuse
    app.get(`/.well-known/${name}`, options, serve)
    app.get(`/.well-known/${name}/*`, options, serve)
  }
  // RFC 7591 dynamic client registration, the next step of such a client.
  app.post('/register', options, refuse)
}

export default oauthDiscoveryRoutes
