// The official MCP SDK client signing in to the gateway's /mcp with nothing but its URL: it is told
// where the metadata is (401 WWW-Authenticate), finds the provider (RFC 9728, RFC 8414), gets a token
// for the gateway's resource (RFC 8707) by client credentials or by authorization code with dynamic
// registration and PKCE (the consent answered by the test), and lists and calls within its scopes.
// In both revisions of the protocol.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/client'
import { BrowserlessOAuthClient } from '../helpers/mcp-oauth-client.ts'
import { signInGateway, type SignInGateway } from './helpers.ts'

const REVISIONS = ['2026-07-28', '2025-11-25'] as const

function clientFor (revision: typeof REVISIONS[number]): Client {
  return new Client({ name: 'oauth-client', version: '1' }, { versionNegotiation: { mode: revision === '2026-07-28' ? { pin: revision } : 'legacy' } })
}

async function connect (t: TestContext, gateway: SignInGateway, revision: typeof REVISIONS[number], provider: OAuthClientProvider): Promise<Client> {
  const client = clientFor(revision)
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.resource), { authProvider: provider }))
  t.after(() => client.close())
  return client
}

for (const revision of REVISIONS) {
  test(`${revision}: the SDK's ClientCredentialsProvider signs in with only the URL, and sees its scopes' tools`, async (t) => {
    const gateway = await signInGateway(t)
    const provider = new ClientCredentialsProvider({ clientId: gateway.idp.agentClient.id, clientSecret: gateway.idp.agentClient.secret, expectedIssuer: gateway.idp.issuer })
    const client = await connect(t, gateway, revision, provider)
    // The SDK asks for the scopes the 401 names (every mapped one); this client may have them all.
    assert.match(provider.tokens()?.scope ?? '', /tools:file/)
    assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ['read_notes', 'run_shell', 'search_web'])
    const result = await client.callTool({ name: 'read_notes', arguments: { text: 'over oauth' } })
    assert.deepEqual(result.content, [{ type: 'text', text: '{"echoed":"over oauth"}' }])
    assert.ok(gateway.idp.requests.some((request) => request.path === '/token'))
  })

  test(`${revision}: authorization code with dynamic registration and PKCE, the user's consent given in the test`, async (t) => {
    const gateway = await signInGateway(t)
    const provider = new BrowserlessOAuthClient(async (url) => await gateway.idp.authorize(url, { account: 'bob' }), { scope: 'tools:web' })
    const transport = new StreamableHTTPClientTransport(new URL(gateway.resource), { authProvider: provider })
    const first = clientFor(revision)
    await assert.rejects(first.connect(transport), (err) => err instanceof UnauthorizedError, 'the first connect sends the user to sign in')
    const callback = provider.callback
    assert.ok(callback !== undefined, 'the SDK sent the user to the provider')
    await transport.finishAuth(callback.searchParams.get('code') ?? '', callback.searchParams.get('iss') ?? undefined)
    const client = await connect(t, gateway, revision, provider)
    assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ['search_web'], 'bob: tools:web, group sales (unmapped)')
    assert.equal((await client.callTool({ name: 'search_web', arguments: {} })).isError, false)
    await assert.rejects(client.callTool({ name: 'read_notes', arguments: {} }), /Unknown tool/)
  })
}
