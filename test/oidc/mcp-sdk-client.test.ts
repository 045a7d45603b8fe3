// The official MCP SDK client's OAuth flows against the test identity provider, with a stand-in for the
// gateway's RFC 9728 metadata (the gateway serves the real one): client credentials through its
// ClientCredentialsProvider, and authorization code with dynamic registration and PKCE through
// auth() with the browserless client. What the SDK asks of the provider is seen in its request log.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer } from 'node:http'
import { test } from 'node:test'
import { auth, ClientCredentialsProvider } from '@modelcontextprotocol/client'
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose'
import { BrowserlessOAuthClient } from '../helpers/mcp-oauth-client.ts'
import { startIdentityProvider, type IdentityProvider } from '../helpers/oidc-provider.ts'

interface TestContext { after: (fn: () => Promise<void> | void) => void }

/** A protected resource that only publishes its metadata, naming `issuer()` as its authorization server. */
async function protectedResource (t: TestContext, issuer: () => string): Promise<string> {
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/.well-known/oauth-protected-resource') === true) {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ resource: url, authorization_servers: [issuer()], scopes_supported: ['tools:file', 'tools:web', 'tools:all'], bearer_methods_supported: ['header'] }))
      return
    }
    res.writeHead(404).end()
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening', { signal: AbortSignal.timeout(5000) })
  t.after(() => { server.closeAllConnections(); server.close() })
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`
  return url
}

async function verify (idp: IdentityProvider, token: string | undefined): Promise<JWTPayload> {
  assert.ok(token !== undefined, 'the SDK stored a token')
  const jwks = createRemoteJWKSet(new URL(idp.jwksUri), { timeoutDuration: 2000 })
  return (await jwtVerify(token, jwks, { issuer: idp.issuer, audience: idp.resource, typ: 'at+jwt' })).payload
}

test('ClientCredentialsProvider gets a token for the MCP server\'s resource', { timeout: 20_000 }, async (t) => {
  let issuer = ''
  const serverUrl = await protectedResource(t, () => issuer)
  const idp = await startIdentityProvider(t, { resource: serverUrl })
  issuer = idp.issuer
  const client = new ClientCredentialsProvider({ clientId: idp.agentClient.id, clientSecret: idp.agentClient.secret, expectedIssuer: idp.issuer, scope: 'tools:file' })
  assert.equal(await auth(client, { serverUrl }), 'AUTHORIZED')
  // RFC 8414 metadata first (found at once, so no OpenID discovery), then the token: no registration.
  assert.deepEqual(idp.requests.map((request) => `${request.method} ${request.path}`), ['GET /.well-known/oauth-authorization-server', 'POST /token'])
  const claims = await verify(idp, client.tokens()?.access_token)
  // The SDK asks for the protected resource's scopes_supported, not the provider's own `scope` option
  // (its scope choice: the 401's scope, else the metadata's scopes_supported, else the client's).
  assert.deepEqual([claims.sub, claims.aud, claims.scope], [idp.agentClient.id, serverUrl, 'tools:file tools:web tools:all'])
  assert.deepEqual(idp.serverErrors, [])
})

test('authorization code: the SDK registers, sends the user through login and consent, and redeems the code with PKCE', { timeout: 20_000 }, async (t) => {
  let issuer = ''
  const serverUrl = await protectedResource(t, () => issuer)
  const idp = await startIdentityProvider(t, { resource: serverUrl })
  issuer = idp.issuer
  const client = new BrowserlessOAuthClient(async (url) => await idp.authorize(url, { account: 'bob' }))
  assert.equal(await auth(client, { serverUrl }), 'REDIRECT')
  const callback = client.callback
  assert.ok(callback !== undefined)
  const code = callback.searchParams.get('code')
  assert.ok(code !== null, callback.href)
  assert.equal(await auth(client, { serverUrl, authorizationCode: code, iss: callback.searchParams.get('iss') ?? undefined }), 'AUTHORIZED')
  const tokens = client.tokens()
  const claims = await verify(idp, tokens?.access_token)
  assert.deepEqual([claims.sub, claims.aud, claims.scope, claims.groups], ['bob', serverUrl, 'tools:web', ['sales']])
  assert.ok(tokens?.refresh_token !== undefined, 'offline_access, added by the SDK, brought a refresh token')
  const seen = new Set(idp.requests.map((request) => `${request.method} ${request.path.replace(/\/(auth|interaction)\/.+$/, '/$1/:uid')}`))
  for (const step of ['GET /.well-known/oauth-authorization-server', 'POST /reg', 'GET /auth', 'GET /interaction/:uid', 'POST /token']) {
    assert.ok(seen.has(step), `${step} in ${[...seen].join(', ')}`)
  }
  assert.deepEqual(idp.serverErrors, [])
})
