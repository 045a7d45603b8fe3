// web_extract through the dispatcher against real pages served on 127.0.0.1, allowlisted with WEB_ALLOW_HOSTS.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { createToolHarness, type ToolHarness } from '../../helpers/harness.ts'

const MAX_BYTES = 16_384
const FETCH_TIMEOUT_MS = 1_000

interface Page {
  title: string | null
  url: string
  final_url: string | null
  status: number | null
  content_type: string | null
  content: string
  truncated: boolean
  truncated_reason?: string
  error?: string
}

const ARTICLE = `<!doctype html><html><head><title>The Lighthouse Keeper</title></head><body>
<nav><a href="/">Home</a> MENU-NOISE</nav>
<article><h1>The Lighthouse Keeper</h1>
${'<p>Every evening the keeper climbed the hundred steps to light the great lamp above the rocks. </p>'.repeat(8)}
<p>See <a href="/history">the history page</a>.</p></article>
<footer>COPYRIGHT-NOISE</footer></body></html>`

let server: Server
let base: string
let harness: ToolHarness
let configDir: string
const hits: string[] = []
const closedSlow: Array<Promise<void>> = []
const gate: ServerResponse[] = []

function send (res: ServerResponse, status: number, type: string | null, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...(type === null ? {} : { 'content-type': type }), ...headers })
  res.end(body)
}

function route (req: IncomingMessage, res: ServerResponse): void {
  const path = req.url ?? '/'
  hits.push(path)
  const hop = /^\/chain\/(\d+)$/.exec(path)
  if (hop) {
    const n = Number(hop[1])
    send(res, n % 2 === 0 ? 301 : 307, null, '', { location: n > 1 ? `/chain/${n - 1}` : `${base}/article` })
    return
  }
  switch (path) {
    case '/article': return send(res, 200, 'text/html; charset=utf-8', ARTICLE)
    case '/article.gz': return send(res, 200, 'text/html; charset=utf-8', gzipSync(ARTICLE), { 'content-encoding': 'gzip' })
    case '/data.json': return send(res, 200, 'application/json', '{"name":"keeper","steps":100,"tags":["lamp","rocks"]}')
    case '/problem': return send(res, 200, 'application/problem+json', '{"title":"nope"}')
    case '/notes.txt': return send(res, 200, 'text/plain; charset=utf-8', 'line one\r\nline two — ünïcode\r\n')
    case '/readme.md': return send(res, 200, 'text/markdown', '# Title\n\n- item *emphasis*\n')
    case '/latin1': return send(res, 200, 'text/plain; charset=iso-8859-1', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x93, 0x6f, 0x6b, 0x94]))
    case '/image.png': return send(res, 200, 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]))
    case '/doc.pdf': return send(res, 200, 'application/pdf', '%PDF-1.7 ...')
    case '/huge.txt': return send(res, 200, 'text/plain', 'x'.repeat(MAX_BYTES * 12))
    case '/bomb.txt': return send(res, 200, 'text/plain', gzipSync(Buffer.alloc(4_000_000, 0x61)), { 'content-encoding': 'gzip' })
    case '/long.txt': return send(res, 200, 'text/plain', 'abcdefghij'.repeat(500))
    case '/long-article': return send(res, 200, 'text/html', `<html><body><article>${'<p>The keeper wrote in his log every night. </p>'.repeat(300)}</article></body></html>`)
    case '/deep': return send(res, 200, 'text/html', `<html><body>${'<div>'.repeat(3000)}deep${'</div>'.repeat(3000)}</body></html>`)
    case '/missing': return send(res, 404, 'text/html', '<html><head><title>Not here</title></head><body><p>No such page, sorry.</p></body></html>')
    case '/ua': return send(res, 200, 'application/json', JSON.stringify({ ua: req.headers['user-agent'] ?? null }))
    case '/loop': return send(res, 302, null, '', { location: '/loop' })
    case '/to-metadata': return send(res, 302, null, '', { location: 'http://169.254.169.254/latest/meta-data/' })
    case '/to-file': return send(res, 302, null, '', { location: 'file:///etc/passwd' })
    case '/slow-headers':
    case '/slow-body': {
      closedSlow.push(new Promise((resolve) => res.on('close', () => resolve())))
      if (path === '/slow-body') res.writeHead(200, { 'content-type': 'text/plain' }).write('first bytes…')
      return // never finishes
    }
    case '/gate': {
      // Answers only once two requests wait here at the same time: proves the URLs are fetched concurrently.
      gate.push(res)
      if (gate.length === 2) for (const waiting of gate.splice(0)) send(waiting, 200, 'text/plain', 'released')
      return
    }
  }
  send(res, 404, 'text/plain', 'unknown')
}

before(async () => {
  server = createServer(route)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  configDir = await mkdtemp(join(tmpdir(), 'gw-web-'))
  const configFile = join(configDir, 'gateway.yaml')
  await writeFile(configFile, `web:\n  maxDownloadBytes: ${MAX_BYTES}\n  fetchTimeoutMs: ${FETCH_TIMEOUT_MS}\n`)
  harness = await createToolHarness({ WEB_ALLOW_HOSTS: '127.0.0.1', GATEWAY_CONFIG: configFile })
})

after(async () => {
  await harness.close()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  await rm(configDir, { recursive: true, force: true })
})

async function extract (args: Record<string, unknown>): Promise<{ status: string, results: Page[], error?: string }> {
  const outcome = await harness.call('web_extract', args)
  const body = JSON.parse(outcome.content) as { results: Page[], error?: string }
  return { status: outcome.status, results: body.results, error: body.error }
}

async function one (path: string, extra: Record<string, unknown> = {}): Promise<Page> {
  const { results } = await extract({ urls: [`${base}${path}`], ...extra })
  assert.equal(results.length, 1)
  return results[0]
}

test('web_extract is discovered in the web toolset, always available', async () => {
  const entry = harness.registry.getEntry('web_extract')
  assert.ok(entry)
  assert.equal(entry.toolset, 'web')
  assert.equal(entry.checkFn, undefined)
  assert.deepEqual(await harness.availability.tool(entry), { available: true })
})

test('an HTML article comes back as markdown with its title, without the page chrome', async () => {
  const page = await one('/article')
  assert.equal(page.error, undefined)
  assert.equal(page.status, 200)
  assert.equal(page.title, 'The Lighthouse Keeper')
  assert.equal(page.final_url, `${base}/article`)
  assert.equal(page.content_type, 'text/html; charset=utf-8')
  assert.equal(page.truncated, false)
  assert.match(page.content, /keeper climbed the hundred steps/)
  assert.match(page.content, new RegExp(`\\[the history page\\]\\(${base}/history\\)`), 'relative links made absolute')
  assert.doesNotMatch(page.content, /MENU-NOISE|COPYRIGHT-NOISE|<p>/)
})

test('a single URL string is accepted (coerced to a list), and gzip bodies are decoded', async () => {
  const { status, results } = await extract({ urls: `${base}/article.gz` })
  assert.equal(status, 'ok')
  assert.match(results[0].content, /keeper climbed/)
})

test('JSON is pretty-printed (also +json types); plain text and markdown come back as text', async () => {
  const { status, results } = await extract({ urls: ['/data.json', '/problem', '/notes.txt', '/readme.md', '/latin1'].map((p) => base + p) })
  assert.equal(status, 'ok')
  const [json, problem, text, markdown, latin1] = results
  assert.equal(json.content, '{\n  "name": "keeper",\n  "steps": 100,\n  "tags": [\n    "lamp",\n    "rocks"\n  ]\n}')
  assert.equal(json.title, null)
  assert.equal(problem.content, '{\n  "title": "nope"\n}')
  assert.equal(text.content, 'line one\nline two — ünïcode')
  assert.equal(markdown.content, '# Title\n\n- item *emphasis*')
  assert.equal(latin1.content, 'café “ok”', 'decoded with the declared charset')
})

test('images and PDFs are refused politely per URL; the other URLs still succeed', async () => {
  const { status, results, error } = await extract({ urls: [`${base}/image.png`, `${base}/article`, `${base}/doc.pdf`] })
  assert.equal(status, 'ok', 'one failing URL does not fail the call')
  assert.equal(error, undefined)
  assert.deepEqual(results.map((r) => r.url), [`${base}/image.png`, `${base}/article`, `${base}/doc.pdf`], 'results in request order')
  assert.match(results[0].error ?? '', /cannot extract content of type image\/png/)
  assert.equal(results[0].content, '')
  assert.equal(results[1].error, undefined)
  assert.match(results[2].error ?? '', /application\/pdf/)
})

test('when every URL fails the call is a tool error that still carries each result', async () => {
  const outcome = await harness.call('web_extract', { urls: [`${base}/image.png`] })
  assert.equal(outcome.status, 'error')
  const body = JSON.parse(outcome.content) as { error: string, results: Page[] }
  assert.match(body.error, /image\/png/)
  assert.equal(body.results.length, 1)
})

test('URLs are fetched concurrently', async () => {
  const { results } = await extract({ urls: [`${base}/gate`, `${base}/gate`] })
  assert.deepEqual(results.map((r) => r.content), ['released', 'released'])
})

test('the download stops at maxDownloadBytes, also for a compression bomb, and says so', async () => {
  for (const path of ['/huge.txt', '/bomb.txt']) {
    const page = await one(path, { char_limit: 100_000 })
    assert.equal(page.error, undefined, path)
    assert.equal(page.truncated, true, path)
    assert.equal(page.truncated_reason, 'download_limit', path)
    assert.match(page.content, new RegExp(`^[xa]{${MAX_BYTES}}\\n\\n\\[truncated: the page is larger than the ${MAX_BYTES}-byte download limit`), path)
  }
})

test('content is cut at char_limit with a marker', async () => {
  const page = await one('/long.txt', { char_limit: 1000 })
  assert.equal(page.truncated, true)
  assert.equal(page.truncated_reason, 'char_limit')
  assert.ok(page.content.startsWith('abcdefghij'.repeat(100) + '\n\n[truncated at char_limit=1000: 4000 more characters not shown]'))
  const full = await one('/long.txt')
  assert.equal(full.truncated, false, 'the default limit (20 000) keeps the 5 000 characters')
  assert.equal(full.content.length, 5000)
})

test('a long HTML article is converted only as far as char_limit, and marked truncated', async () => {
  const page = await one('/long-article', { char_limit: 500 })
  assert.equal(page.truncated, true)
  assert.equal(page.truncated_reason, 'char_limit')
  assert.match(page.content, /^The keeper wrote in his log every night\./)
  assert.match(page.content, /\n\n\[truncated at char_limit=500: (the rest of the page is not shown|\d+ more characters not shown)\]$/)
  assert.ok(page.content.length < 600)
})

test('a pathologically nested page fails alone and cleanly, it does not crash the call', async () => {
  const { status, results } = await extract({ urls: [`${base}/deep`, `${base}/data.json`] })
  assert.equal(status, 'ok')
  assert.equal(results[1].error, undefined)
  if (results[0].error !== undefined) assert.match(results[0].error, /could not convert the HTML page/)
  else assert.match(results[0].content, /deep/)
})

test('a page slower than fetchTimeoutMs times out without holding up the others, and its connection is closed', async () => {
  closedSlow.length = 0
  const { status, results } = await extract({ urls: [`${base}/slow-headers`, `${base}/slow-body`, `${base}/article`] })
  assert.equal(status, 'ok')
  assert.match(results[0].error ?? '', new RegExp(`timed out after ${FETCH_TIMEOUT_MS} ms`))
  assert.match(results[1].error ?? '', /timed out/)
  assert.equal(results[2].error, undefined)
  await Promise.all(closedSlow)
})

test('the dispatch deadline aborts the download (ctx.signal) and closes the connection', async () => {
  closedSlow.length = 0
  const outcome = await harness.call('web_extract', { urls: [`${base}/slow-body`] }, { timeoutMs: 100 })
  assert.equal(outcome.status, 'timeout')
  assert.ok(outcome.durationMs < FETCH_TIMEOUT_MS, `took ${outcome.durationMs} ms`)
  await Promise.all(closedSlow)
})

test('redirects are followed one hop at a time, up to 5', async () => {
  const chain = await one('/chain/3')
  assert.equal(chain.error, undefined)
  assert.equal(chain.final_url, `${base}/article`)
  assert.match(chain.content, /keeper climbed/)

  hits.length = 0
  const loop = await one('/loop')
  assert.match(loop.error ?? '', /too many redirects \(more than 5\)/)
  assert.equal(hits.length, 6, 'the first request and five redirects, no more')
})

test('a redirect to the metadata address or to another scheme is refused before it is followed', async () => {
  const metadata = await one('/to-metadata')
  assert.match(metadata.error ?? '', /redirected to http:\/\/169\.254\.169\.254\/latest\/meta-data\/: refused by the SSRF guard/)
  const file = await one('/to-file')
  assert.match(file.error ?? '', /redirected to file:\/\/\/etc\/passwd: refused: only http/)
})

test('an HTTP error status is reported with the page content kept', async () => {
  const page = await one('/missing')
  assert.equal(page.status, 404)
  assert.equal(page.error, 'the server answered HTTP 404')
  assert.match(page.content, /No such page/)
})

test('requests identify the gateway in their User-Agent', async () => {
  const page = await one('/ua')
  assert.match(JSON.parse(page.content).ua, /^tool-gateway\/.*web_extract/)
})

test('more than 5 URLs is refused with a clear error; a bad URL fails alone', async () => {
  const outcome = await harness.call('web_extract', { urls: Array.from({ length: 6 }, (_, i) => `${base}/article?${i}`) })
  assert.equal(outcome.status, 'invalid')
  assert.match(outcome.content, /\/urls: must NOT have more than 5 items/)

  const { results } = await extract({ urls: ['not a url', `${base}/data.json`] })
  assert.match(results[0].error ?? '', /not a valid absolute URL/)
  assert.equal(results[1].error, undefined)
})
