// The operator console's server side (routes/console.ts, src/console/): its files served with their
// types, ETags and strict headers, nothing outside console/ however the path is spelt, the vendored
// OAuth client, and /console/config.json with and without a provider, never carrying a secret.
// (The browser tests of the page itself are test/console/, in the system tier.)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildTestApp } from '../helpers/app.ts'
import { bearer, configFolder, keysYaml } from '../helpers/keys.ts'
import { ConsoleFiles, consolePath, packageRoot } from '../../src/console/files.ts'
import { signInGateway } from '../auth/helpers.ts'

/** GET over a real socket, the path sent exactly as written (inject and fetch normalise `..`). */
async function rawGet (port: number, path: string): Promise<{ status: number, body: string }> {
  return await new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { body += chunk })
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, body }) })
    })
    req.on('error', reject)
    req.end()
  })
}

function assertStrictHeaders (headers: Record<string, unknown>, where: string): void {
  const csp = String(headers['content-security-policy'])
  for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "frame-ancestors 'none'", "base-uri 'none'"]) {
    assert.ok(csp.includes(directive), `${where}: ${directive} missing from ${csp}`)
  }
  assert.doesNotMatch(csp, /unsafe-|\*/, `${where}: ${csp}`)
  assert.equal(headers['x-content-type-options'], 'nosniff', where)
  assert.equal(headers['referrer-policy'], 'no-referrer', where)
  assert.equal(headers['x-frame-options'], 'DENY', where)
  assert.equal(headers['cross-origin-opener-policy'], 'same-origin', where)
  assert.equal(headers['cache-control'], 'no-cache', where)
}

test('/console redirects to /console/, which serves index.html with an ETag, 304 on If-None-Match, and the strict headers', async (t) => {
  const { app } = await buildTestApp(t)
  const missing = await app.inject({ url: '/console/missing.js' })
  assert.equal(missing.statusCode, 404)
  assert.equal(missing.json().code, 'GW_ERR_NOT_FOUND')
  assertStrictHeaders(missing.headers, 'a 404')
  const head = await app.inject({ method: 'HEAD', url: '/console/' })
  assert.equal(head.statusCode, 200)
  assertStrictHeaders(head.headers, 'HEAD')
  const redirect = await app.inject({ url: '/console?x=1' })
  assert.equal(redirect.statusCode, 308)
  assert.equal(redirect.headers.location, '/console/?x=1')
  assertStrictHeaders(redirect.headers, 'the redirect')

  const page = await app.inject({ url: '/console/' })
  assert.equal(page.statusCode, 200)
  assert.equal(page.headers['content-type'], 'text/html; charset=utf-8')
  assert.match(page.body, /<html/i)
  assertStrictHeaders(page.headers, '/console/')
  const etag = String(page.headers.etag)
  assert.match(etag, /^".+"$/)
  assert.equal((await app.inject({ url: '/console/index.html' })).headers.etag, etag)
  const again = await app.inject({ url: '/console/', headers: { 'if-none-match': etag } })
  assert.equal(again.statusCode, 304)
  assert.equal(again.body, '')
  assert.equal((await app.inject({ url: '/console/', headers: { 'if-none-match': `"other", W/${etag}` } })).statusCode, 304)
  assert.equal((await app.inject({ url: '/console/', headers: { 'if-none-match': '"other"' } })).statusCode, 200)
})

test('the vendored oauth4webapi is served as JavaScript, from the dependency', async (t) => {
  const { app } = await buildTestApp(t)
  const vendor = await app.inject({ url: '/console/vendor/oauth4webapi.js' })
  assert.equal(vendor.statusCode, 200)
  assert.equal(vendor.headers['content-type'], 'text/javascript; charset=utf-8')
  assert.match(vendor.body, /export async function discoveryRequest/)
  assertStrictHeaders(vendor.headers, 'the vendor file')
})

test('the console pages are public with keys configured, and exempt from nothing else: the Host check still applies', async (t) => {
  const { file } = await configFolder(t, keysYaml([{ name: 'ops', key: 'ops-key-5e6f7a8b' }]))
  const { app } = await buildTestApp(t, { GATEWAY_CONFIG: file })
  assert.equal((await app.inject({ url: '/console/' })).statusCode, 200)
  assert.equal((await app.inject({ url: '/console/config.json' })).statusCode, 200)
  assert.equal((await app.inject({ url: '/tools' })).statusCode, 401)
  assert.equal((await app.inject({ url: '/tools', headers: bearer('ops-key-5e6f7a8b') })).statusCode, 200)
  const rebound = await app.inject({ url: '/console/', headers: { host: 'attacker.example' } })
  assert.equal(rebound.statusCode, 403)
})

test('nothing outside console/ is served, however the path is spelt: 404 with the JSON error body', async (t) => {
  const { app } = await buildTestApp(t)
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  const port = Number(new URL(address).port)
  const attempts = [
    '/console/../package.json', '/console/%2e%2e/package.json', '/console/%2E%2E/%2E%2E/etc/passwd', '/console/..%2fpackage.json',
    '/console/views%2f..%2f..%2fpackage.json', '/console/..%5cpackage.json', '/console/.hidden', '/console/.git/config',
    '/console/vendor/', '/console/views/', '/console/views', '/console/missing.js', '/console/index.html%00.js',
    '/console/%2fetc%2fpasswd', '/console//etc/passwd', '/console/vendor/../../package.json'
  ]
  for (const path of attempts) {
    const answer = await rawGet(port, path)
    assert.equal(answer.status, 404, `${path}: ${answer.status} ${answer.body.slice(0, 200)}`)
    assert.equal(JSON.parse(answer.body).code, 'GW_ERR_NOT_FOUND', path)
    assert.doesNotMatch(answer.body, /"name": "tool-gateway"|root:/, path)
  }
})

test('consolePath takes only plain segments of known types; ConsoleFiles follows no link out of its folder', async (t) => {
  assert.equal(consolePath('', '/console/'), 'index.html')
  assert.equal(consolePath('views/tools.js', '/console/views/tools.js'), 'views/tools.js')
  assert.equal(consolePath('app.js', '/console/app.js?v=2'), 'app.js')
  for (const bad of ['../x.js', './x.js', '.env', 'views/.x.js', 'a//b.js', 'x.ts', 'x', 'views/', 'a\\b.js', 'x.js\u0000']) {
    assert.equal(consolePath(bad, `/console/${bad}`), undefined, bad)
  }
  assert.equal(consolePath('views/x.js', '/console/views%2Fx.js'), undefined)

  const dir = await mkdtemp(join(tmpdir(), 'gw-console-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const root = join(dir, 'console')
  await mkdir(root)
  await writeFile(join(dir, 'secret.js'), 'secret')
  await writeFile(join(root, 'app.js'), 'export {}')
  await symlink(join(dir, 'secret.js'), join(root, 'leak.js'))
  const files = new ConsoleFiles(root)
  assert.equal((await files.get('app.js'))?.body.toString(), 'export {}')
  assert.equal(await files.get('leak.js'), undefined)
  // An edited file is served as it is now, with a new ETag.
  const before = (await files.get('app.js'))?.etag
  await writeFile(join(root, 'app.js'), 'export const changed = true')
  const after = await files.get('app.js')
  assert.equal(after?.body.toString(), 'export const changed = true')
  assert.notEqual(after?.etag, before)
  // The package root is found from the module's own place, in the sources as in dist/.
  assert.equal(packageRoot(), join(import.meta.dirname, '..', '..'))
  assert.equal(packageRoot(join(import.meta.dirname, '..', '..', 'dist', 'src', 'console')), join(import.meta.dirname, '..', '..'))
  assert.throws(() => packageRoot(root), /no package\.json/)
})

test('/console/config.json without auth.oauth: keys only (or open), no provider, no secret', async (t) => {
  const open = await buildTestApp(t)
  const openConfig = await open.app.inject({ url: '/console/config.json' })
  assert.equal(openConfig.statusCode, 200)
  assert.deepEqual(openConfig.json(), { auth: { keys: false, open: true, oauth: null }, version: openConfig.json().version })
  assert.match(openConfig.json().version, /^\d+\.\d+\.\d+/)
  assertStrictHeaders(openConfig.headers, 'config.json')

  const { file } = await configFolder(t, keysYaml([{ name: 'ops', key: 'ops-key-1a2b3c4d' }]))
  const keyed = await buildTestApp(t, { GATEWAY_CONFIG: file })
  const keyedConfig = (await keyed.app.inject({ url: '/console/config.json' })).json()
  assert.deepEqual(keyedConfig.auth, { keys: true, open: false, oauth: null })
})

test('/console/config.json with a console client: the provider\'s endpoints, and the CSP lets the page reach them; never the gateway\'s secret', async (t) => {
  const gateway = await signInGateway(t, { oauth: { consoleClientId: 'gateway-console' } })
  const answer = await fetch(`${gateway.base}/console/config.json`)
  assert.equal(answer.status, 200)
  const text = await answer.text()
  const body = JSON.parse(text)
  assert.deepEqual(body.auth, {
    keys: true,
    open: false,
    oauth: {
      issuer: gateway.idp.issuer,
      clientId: 'gateway-console',
      scopes: ['tools:file', 'tools:web', 'tools:all'],
      resource: gateway.resource,
      authorizationEndpoint: gateway.idp.authorizationEndpoint,
      tokenEndpoint: gateway.idp.tokenEndpoint
    }
  })
  assert.equal(body.oauthError, undefined)
  assert.ok(!text.includes(gateway.idp.gatewayClient.secret), 'the gateway client secret leaked')
  const page = await fetch(`${gateway.base}/console/`)
  const csp = page.headers.get('content-security-policy') ?? ''
  assert.match(csp, new RegExp(`connect-src 'self' ${gateway.idp.issuer}(;|$)`))
  assert.match(csp, new RegExp(`form-action 'self' ${gateway.idp.issuer}(;|$)`))
  assert.doesNotMatch(csp, /unsafe-/)
})

test('/console/config.json with auth.oauth but no console client: keys only; with the provider down: oauth null and why', async (t) => {
  const withoutClient = await signInGateway(t)
  const plain = await (await fetch(`${withoutClient.base}/console/config.json`)).json() as { auth: unknown, oauthError?: string }
  assert.deepEqual(plain.auth, { keys: true, open: false, oauth: null })
  assert.equal(plain.oauthError, undefined)

  const down = await signInGateway(t, { oauth: { consoleClientId: 'gateway-console' } })
  down.idp.setFailure(503)
  const answer = await fetch(`${down.base}/console/config.json`)
  assert.equal(answer.status, 200)
  const body = await answer.json() as { auth: { oauth: unknown, keys: boolean }, oauthError: string }
  assert.equal(body.auth.oauth, null)
  assert.equal(body.auth.keys, true)
  assert.match(body.oauthError, /could not be asked for its metadata/)
  // The page still loads, allowed to reach the issuer once it is back.
  const page = await fetch(`${down.base}/console/`)
  assert.equal(page.status, 200)
  assert.match(page.headers.get('content-security-policy') ?? '', new RegExp(`connect-src 'self' ${down.idp.issuer}`))
})
