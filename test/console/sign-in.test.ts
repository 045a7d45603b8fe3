// Signing in to the console (issue 32) with the identity provider, in Debian's chromium: the
// authorization code flow with PKCE as the public client OAUTH_CONSOLE_CLIENT_ID, against a real
// OpenID provider (test/helpers/oidc-provider.ts, login and consent answered by its harness), back to
// /console/ with the code, exchanged by the page; the console then lists what the token's scopes
// grant, and nothing is refused by its CSP on the way.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { axeViolations, openPage } from '../helpers/browser.ts'
import { freePort } from '../helpers/free-port.ts'
import { startIdentityProvider } from '../helpers/oidc-provider.ts'
import type { Locator, Page } from 'playwright-core'
import { consoleGateway, heading, openView, settled, unexpected, VIEWS } from './helpers.ts'

interface Setup { account: { scopes: string[] }, adminScope?: string }

/** A provider knowing one user with `account`'s scopes and the console's public client; the gateway trusting it; signed in in the page. */
async function signedInWithProvider (t: TestContext, setup: Setup) {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const scopes = ['tools:file', 'tools:web', ...setup.adminScope === undefined ? [] : [setup.adminScope]]
  const idp = await startIdentityProvider(t, { resource: `${base}/mcp`, scopes, accounts: { fran: setup.account }, corsOrigins: [base] })
  const registered = await idp.register({
    client_name: 'tool gateway console',
    redirect_uris: [`${base}/console/`],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none'
  })
  assert.equal(registered.status, 201, JSON.stringify(registered.body))
  const oauth = { issuer: idp.issuer, resource: `${base}/mcp`, scopes: { 'tools:file': ['file'], 'tools:web': ['web'] }, adminScope: setup.adminScope, requestTimeoutMs: 2000 }
  const gateway = await consoleGateway(t, { port, auth: { oauth }, env: { OAUTH_CONSOLE_CLIENT_ID: registered.body.client_id as string } })

  const browser = await openPage(t, { folder: 'console' })
  const { page } = browser
  await page.goto(`${gateway.base}/console/#/tools`)
  await heading(page, 'Sign in')
  await page.getByRole('button', { name: 'Sign in with your identity provider' }).click()
  await heading(page, 'Tools')
  await settled(page)
  return { ...browser, idp, base }
}

const links = async (page: Page, within: Locator): Promise<string[]> => (await within.getByRole('link').allInnerTexts()).map((text) => text.trim())

test('sign-in with the identity provider: code flow with PKCE in the browser, back to the console, which lists the tools the token\'s scopes grant', async (t) => {
  // A user granted tools:file only, whatever the console asks for.
  const { page, problems, failed, screenshot, idp, base } = await signedInWithProvider(t, { account: { scopes: ['tools:file'] } })
  const url = new URL(page.url())
  assert.equal(`${url.origin}${url.pathname}`, `${base}/console/`)
  assert.equal(url.search, '', 'the code is taken out of the address bar')
  assert.ok(idp.requests.some((request) => request.path === '/token'), 'the code exchanged at the provider')

  const table = page.getByRole('table')
  await table.getByRole('link', { name: 'read_file', exact: true }).waitFor({ timeout: 10_000 })
  assert.deepEqual((await links(page, table)).sort(), ['patch', 'read_file', 'search_files', 'write_file'], 'the file tools, which tools:file grants, and nothing else')
  assert.deepEqual(await links(page, page.getByRole('navigation', { name: 'Console' })), ['Tools', 'MCP servers', 'Toolsets', 'Charts'])
  assert.deepEqual(await axeViolations(page), [])
  await screenshot('tools-signed-in-with-provider')
  assert.deepEqual(problems, [], 'no console error nor CSP violation on the way')
  assert.deepEqual(unexpected(failed, /^403 GET \/admin\//), [])
  assert.deepEqual(idp.serverErrors, [])
})

test('a user granted the admin scope signs in with the identity provider and is an operator in the console: Calls, Approvals and pins', async (t) => {
  const { page, problems, failed, idp } = await signedInWithProvider(t, { account: { scopes: ['tools:file', 'tools:web', 'gateway:admin'] }, adminScope: 'gateway:admin' })
  const nav = page.getByRole('navigation', { name: 'Console' })
  await nav.getByRole('link', { name: 'Calls', exact: true }).waitFor({ timeout: 10_000 })
  assert.deepEqual(await links(page, nav), VIEWS.map((view) => view.link))
  await openView(page, VIEWS[5])
  assert.equal(await page.getByRole('main').getByText(/Only operators/).count(), 0)
  assert.deepEqual(problems, [])
  assert.deepEqual(unexpected(failed), [])
  assert.deepEqual(idp.serverErrors, [])
})
