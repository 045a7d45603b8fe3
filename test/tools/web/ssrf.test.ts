// web_extract must refuse every loopback, private, link-local and odd-spelling destination without
// an allowlist, and refuse non-loopback ones before any connection (nothing leaves 127.0.0.0/8 here).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createToolHarness, type ToolHarness } from '../../helpers/harness.ts'

interface Page { url: string, error?: string, content: string, status: number | null }

// A large download deadline: a guard that let a blackholed address through would hang visibly.
const FETCH_TIMEOUT_MS = 20_000
const QUICK_MS = 2_000

let secret: Server
let secretPort: number
const secretHits: string[] = []
let front: Server
let frontBase: string
let configDir: string
let configFile: string
// Every connection undici starts, by host: proof that a refusal happened before connecting.
const connects: string[] = []
const onConnect = (message: unknown): void => {
  connects.push(String((message as { connectParams: { hostname: string } }).connectParams.hostname))
}

function listen (server: Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as { port: number }).port)))
}

before(async () => {
  subscribe('undici:client:beforeConnect', onConnect)
  secret = createServer((req, res) => {
    secretHits.push(req.url ?? '')
    res.writeHead(200, { 'content-type': 'text/plain' }).end('TOP SECRET')
  })
  secretPort = await listen(secret, '127.0.0.1')
  // The front page lives on 127.0.0.2 (loopback too on Linux) so that it can be allowlisted alone.
  front = createServer((req, res) => {
    const target = req.url?.slice(1) === 'to-localhost' ? `http://localhost:${secretPort}/secret` : `http://127.0.0.1:${secretPort}/secret`
    if (req.url === '/ok') res.writeHead(200, { 'content-type': 'text/plain' }).end('front page')
    else res.writeHead(302, { location: target }).end()
  })
  frontBase = `http://127.0.0.2:${await listen(front, '127.0.0.2')}`
  configDir = await mkdtemp(join(tmpdir(), 'gw-ssrf-'))
  configFile = join(configDir, 'gateway.yaml')
  await writeFile(configFile, `web:\n  fetchTimeoutMs: ${FETCH_TIMEOUT_MS}\n`)
})

after(async () => {
  unsubscribe('undici:client:beforeConnect', onConnect)
  for (const server of [secret, front]) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
  await rm(configDir, { recursive: true, force: true })
})

async function harnessWith (t: { after: (fn: () => Promise<void>) => void }, env: Record<string, string> = {}): Promise<ToolHarness> {
  const h = await createToolHarness({ GATEWAY_CONFIG: configFile, ...env })
  t.after(() => h.close())
  return h
}

async function refused (h: ToolHarness, url: string): Promise<{ error: string, durationMs: number }> {
  const outcome = await h.call('web_extract', { urls: [url] })
  assert.equal(outcome.status, 'error', `${url} should fail: ${outcome.content.slice(0, 300)}`)
  const body = JSON.parse(outcome.content) as { results: Page[] }
  assert.equal(body.results[0].content, '')
  return { error: body.results[0].error ?? '', durationMs: outcome.durationMs }
}

test('without an allowlist every spelling of a loopback address is refused', async (t) => {
  const h = await harnessWith(t)
  const urls = [
    `http://127.0.0.1:${secretPort}/`,
    `http://[::1]:${secretPort}/`,
    `http://[::ffff:127.0.0.1]:${secretPort}/`,
    `http://2130706433:${secretPort}/`,
    `http://0x7f000001:${secretPort}/`,
    `http://0177.0.0.1:${secretPort}/`,
    `http://127.1:${secretPort}/`,
    `http://0.0.0.0:${secretPort}/`,
    `http://127.0.0.2:${secretPort}/`
  ]
  connects.length = 0
  for (const url of urls) {
    const { error } = await refused(h, url)
    assert.match(error, /refused by the SSRF guard: .*(loopback|unspecified)/, url)
  }
  assert.deepEqual(connects, [], 'literal addresses are refused before undici opens a connection')
  assert.deepEqual(secretHits, [])
})

test('a hostname that resolves to loopback is refused at connect time', async (t) => {
  const h = await harnessWith(t)
  const { error } = await refused(h, `http://localhost:${secretPort}/`)
  assert.match(error, /refused by the SSRF guard: localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/)
  assert.deepEqual(secretHits, [])
})

test('private, link-local (metadata), CGNAT and multicast addresses are refused at once, without connecting', async (t) => {
  const h = await harnessWith(t)
  const cases: Array<[string, RegExp]> = [
    ['http://169.254.169.254/latest/meta-data/', /link-local address \(this range holds cloud metadata services\)/],
    ['http://10.0.0.1/', /private-network/],
    ['http://192.168.1.1/', /private-network/],
    ['http://172.16.5.4:8080/', /private-network/],
    ['http://100.64.0.1/', /carrier-grade NAT/],
    ['http://[fe80::1]/', /link-local/],
    ['http://[fd00::1]/', /unique local/],
    ['http://224.0.0.1/', /multicast/],
    ['http://[::ffff:169.254.169.254]/', /embedding a link-local/],
    ['http://0xa9fea9fe/', /link-local/]
  ]
  connects.length = 0
  for (const [url, reason] of cases) {
    const { error, durationMs } = await refused(h, url)
    assert.match(error, /refused by the SSRF guard/, url)
    assert.match(error, reason, url)
    assert.ok(durationMs < QUICK_MS, `${url} took ${durationMs} ms: it must not wait on a connection`)
  }
  assert.deepEqual(connects, [], 'no connection was attempted to any of them')
})

test('schemes other than http and https are refused with a clear message', async (t) => {
  const h = await harnessWith(t)
  for (const url of ['file:///etc/passwd', 'ftp://x/', 'gopher://x/', 'data:text/plain,hello']) {
    const { error } = await refused(h, url)
    assert.match(error, /only http:\/\/ and https:\/\/ URLs can be fetched/, url)
  }
  assert.match((await refused(h, `http://user:pw@127.0.0.2:${secretPort}/`)).error, /user name or password/)
})

test('an allowlisted host that redirects to a non-allowlisted loopback address: the hop is refused', async (t) => {
  const h = await harnessWith(t, { WEB_ALLOW_HOSTS: '127.0.0.2' })
  const ok = await h.json('web_extract', { urls: [`${frontBase}/ok`] })
  assert.equal((ok.results as Page[])[0].content, 'front page', 'the allowlisted host itself is reachable')

  const direct = await refused(h, `${frontBase}/to-ip`)
  assert.match(direct.error, new RegExp(`redirected to http://127\\.0\\.0\\.1:${secretPort}/secret: refused by the SSRF guard: 127\\.0\\.0\\.1 is a loopback address`))
  const viaName = await refused(h, `${frontBase}/to-localhost`)
  assert.match(viaName.error, /refused by the SSRF guard: localhost resolves to/)
  assert.deepEqual(secretHits, [], 'the secret server never saw a request')
})

test('the allowlist takes hostnames and CIDR networks', async (t) => {
  const byName = await harnessWith(t, { WEB_ALLOW_HOSTS: 'LOCALHOST' })
  const named = await byName.json('web_extract', { urls: [`http://localhost:${secretPort}/by-name`] })
  assert.equal((named.results as Page[])[0].content, 'TOP SECRET')
  assert.match((await refused(byName, `http://127.0.0.1:${secretPort}/`)).error, /loopback/, 'a name entry does not allow the address itself')

  const byNetwork = await harnessWith(t, { WEB_ALLOW_HOSTS: '10.0.0.0/8,127.0.0.0/8' })
  const networked = await byNetwork.json('web_extract', { urls: [`http://0x7f000001:${secretPort}/by-network`] })
  assert.equal((networked.results as Page[])[0].content, 'TOP SECRET')
  assert.match((await refused(byNetwork, 'http://192.168.1.1/')).error, /private-network/)
  assert.deepEqual(secretHits.splice(0), ['/by-name', '/by-network'])
})
