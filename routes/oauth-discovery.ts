// OAuth discovery paths, answered as public 404s. MCP clients such as mcp-remote probe them before
// they send the configured key; answered 401 they would count as failed logins of the address (and
// lock out its valid keys), and the user would read an OAuth error instead of the real state: this
// gateway takes API keys. Until it serves real metadata documents, the answer says so.
import type { FastifyPluginAsync } from 'fastify'
import { NotFoundError } from '../src/errors.ts'

const MESSAGE = 'this gateway does not offer OAuth sign-in: send an API key as Authorization: Bearer <key>'

/** Well-known documents of RFC 9728, RFC 8414 and OpenID discovery, bare and per resource path. */
const WELL_KNOWN = ['oauth-protected-resource', 'oauth-authorization-server', 'openid-configuration']

const oauthDiscoveryRoutes: FastifyPluginAsync = async (app) => {
  const options = { config: { public: true, traced: false }, schema: { hide: true } }
  const refuse = async (): Promise<never> => { throw new NotFoundError(MESSAGE) }
  for (const name of WELL_KNOWN) {
    app.get(`/.well-known/${name}`, options, refuse)
    app.get(`/.well-known/${name}/*`, options, refuse)
  }
  // RFC 7591 dynamic client registration, the next step of such a client.
  app.post('/register', options, refuse)
}

export default oauthDiscoveryRoutes
