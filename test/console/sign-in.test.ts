// Signing in to the console (issue 32) with the identity provider, in Debian's chromium: the
// authorization code flow with PKCE as the public client OAUTH_CONSOLE_CLIENT_ID, against a real
// OpenID provider (test/helpers/oidc-provider.ts, login and consent answered by its harness), back to
// /console/ with the code, exchanged by the page; the console then lists what the token's scopes
// grant, and nothing is refused by its CSP on the way.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { axeViolations, openPage } from '../helpers/browser.ts'
import { freePort } from '../helpers/free-port.ts'
import { startIdentityProvider } from '../helpers/oidc-provider.ts'
import { consoleGateway, heading, unexpected } from './helpers.ts'

test('sign-in with the identity provider: code flow with PKCE in the browser, back to the console, which lists the tools the token\'s scopes grant', async (t) => {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const idp = await startIdentityProvider(t, {
    resource: `${base}/mcp`,
    // A user granted tools:file only, whatever the console asks for.
    accounts: { fran: { scopes: ['tools:file'] } },
    corsOrigins: [base]
  })
  const registered = await idp.register({
    client_name: 'tool gateway console',
    redirect_uris: [`${base}/console/`],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none'
  })
  assert.equal(registered.status, 201, JSON.stringify(registered.body))
  const clientId = registered.body.client_id as string
  const gateway = await consoleGateway(t, {
    port,
    auth: { oauth: { issuer: idp.issuer, resource: `${base}/mcp`, scopes: { 'tools:file': ['file'], 'tools:web': ['web'] }, requestTimeoutMs: 2000 } },
    env: { OAUTH_CONSOLE_CLIENT_ID: clientId }
  })

  const { page, problems, failed, screenshot } = await openPage(t, { folder: 'console' })
  await page.goto(`${gateway.base}/console/#/tools`)
  await heading(page, 'Sign in')
  await page.getByRole('button', { name: 'Sign in with your identity provider' }).click()
  await heading(page, 'Tools')
  const url = new URL(page.url())
  assert.equal(`${url.origin}${url.pathname}`, `${base}/console/`)
  assert.equal(url.search, '', 'the code is taken out of the address bar')
  assert.ok(idp.requests.some((request) => request.path === '/token'), 'the code exchanged at the provider')

  const table = page.getByRole('table')
  await table.getByRole('link', { name: 'read_file', exact: true }).waitFor({ timeout: 10_000 })
  const tools = (await table.getByRole('link').allInnerTexts()).map((text) => text.trim()).sort()
  assert.deepEqual(tools, ['patch', 'read_file', 'search_files', 'write_file'], 'the file tools, which tools:file grants, and nothing else')
  assert.deepEqual(await axeViolations(page), [])
  await screenshot('tools-signed-in-with-provider')
  assert.deepEqual(problems, [], 'no console error nor CSP violation on the way')
  assert.deepEqual(unexpected(failed, /^403 GET \/admin\//), [])
  assert.deepEqual(idp.serverErrors, [])
})
