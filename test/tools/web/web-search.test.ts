// web_search against local fakes speaking SearXNG's and Brave's JSON, plus backend choice and availability.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createToolHarness, type ToolHarness } from '../../helpers/harness.ts'
import { chooseBackend, NO_BACKEND_REASON, searchBrave, SearchFailedError } from '../../../tools/web/lib/search.ts'

interface Hit { title: string, url: string, snippet: string }

/** The shape SearXNG's /search?format=json answers with (trimmed to what matters plus some extras). */
function searxngAnswer (query: string, count: number): unknown {
  return {
    query,
    number_of_results: 0,
    results: [
      { url: 'javascript:alert(1)', title: 'not a web page', content: 'dropped', engine: 'x' },
      ...Array.from({ length: count }, (_, i) => ({
        url: `https://example.org/otters/${i}`,
        title: `Otter fact ${i}`,
        content: `Otters &amp; kelp, fact number ${i}.`,
        engine: 'duckduckgo',
        parsed_url: ['https', 'example.org', `/otters/${i}`, '', '', ''],
        template: 'default.html',
        engines: ['duckduckgo', 'brave'],
        positions: [i + 1],
        score: 2.5 - i / 10,
        category: 'general'
      }))
    ],
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: ['sea otters'],
    unresponsive_engines: []
  }
}

const requests: URL[] = []
let searx: Server
let searxBase: string
let configDir: string
let slowConfig: string

function json (res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

function handle (req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://fake')
  requests.push(url)
  const q = url.searchParams.get('q') ?? ''
  if (url.pathname === '/brave/res/v1/web/search') {
    if (req.headers['x-subscription-token'] !== 'brave-key') return json(res, 401, { type: 'ErrorResponse' })
    const count = Number(url.searchParams.get('count'))
    return json(res, 200, {
      type: 'search',
      query: { original: q },
      web: {
        type: 'search',
        results: Array.from({ length: count }, (_, i) => ({
          title: `<strong>Brave</strong> result ${i}`,
          url: `https://brave.example/${i}`,
          description: `Some <strong>highlighted</strong> words &quot;${q}&quot; ${i}`,
          is_source_local: false
        }))
      }
    })
  }
  if (!url.pathname.endsWith('/search') || url.searchParams.get('format') !== 'json') return json(res, 404, {})
  if (q === 'boom') return json(res, 500, { error: 'internal' })
  if (q === 'forbidden') return json(res, 403, {})
  if (q === 'garbage') {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html>not json</html>')
    return
  }
  if (q === 'hang') return // never answers
  json(res, 200, searxngAnswer(q, 25))
}

before(async () => {
  searx = createServer(handle)
  await new Promise<void>((resolve) => searx.listen(0, '127.0.0.1', resolve))
  searxBase = `http://127.0.0.1:${(searx.address() as { port: number }).port}`
  configDir = await mkdtemp(join(tmpdir(), 'gw-search-'))
  slowConfig = join(configDir, 'gateway.yaml')
  await writeFile(slowConfig, 'web:\n  fetchTimeoutMs: 300\n')
})

after(async () => {
  searx.closeAllConnections()
  await new Promise((resolve) => searx.close(resolve))
  await rm(configDir, { recursive: true, force: true })
})

async function harnessWith (t: { after: (fn: () => Promise<void>) => void }, env: Record<string, string>): Promise<ToolHarness> {
  const h = await createToolHarness(env)
  t.after(() => h.close())
  return h
}

test('SearXNG: normalised results, default limit 5, the query sent with format=json', async (t) => {
  const h = await harnessWith(t, { SEARXNG_URL: searxBase })
  assert.deepEqual(await h.availability.tool(h.registry.getEntry('web_search')!), { available: true })
  requests.length = 0
  const body = await h.json('web_search', { query: 'sea otters & kelp' })
  assert.equal(body.backend, 'searxng')
  assert.equal(body.query, 'sea otters & kelp')
  const results = body.results as Hit[]
  assert.equal(results.length, 5)
  assert.deepEqual(results[0], { title: 'Otter fact 0', url: 'https://example.org/otters/0', snippet: 'Otters & kelp, fact number 0.' })
  assert.ok(results.every((r) => r.url.startsWith('https://')), 'non-http results are dropped')
  assert.equal(requests.length, 1)
  assert.equal(requests[0].pathname, '/search')
  assert.equal(requests[0].searchParams.get('q'), 'sea otters & kelp')
  assert.equal(requests[0].searchParams.get('format'), 'json')
})

test('SearXNG: limit is honoured up to 20, and a base URL with a path keeps it', async (t) => {
  const h = await harnessWith(t, { SEARXNG_URL: `${searxBase}/searx` })
  requests.length = 0
  const three = await h.json('web_search', { query: 'otters', limit: 3 })
  assert.equal((three.results as Hit[]).length, 3)
  const twenty = await h.json('web_search', { query: 'otters', limit: '20' })
  assert.equal((twenty.results as Hit[]).length, 20)
  assert.deepEqual(requests.map((r) => r.pathname), ['/searx/search', '/searx/search'])
  const tooMany = await h.call('web_search', { query: 'otters', limit: 21 })
  assert.equal(tooMany.status, 'invalid')
  assert.match(tooMany.content, /\/limit/)
})

test('SearXNG failures are clear tool errors: HTTP 500, JSON format disabled, not JSON, unreachable, too slow', async (t) => {
  const h = await harnessWith(t, { SEARXNG_URL: searxBase, GATEWAY_CONFIG: slowConfig })
  const cases: Array<[string, RegExp]> = [
    ['boom', /web search failed: SearXNG answered HTTP 500/],
    ['forbidden', /HTTP 403: .*"json" to search\.formats/],
    ['garbage', /not JSON/],
    ['hang', /did not answer within 300 ms/]
  ]
  for (const [query, message] of cases) {
    const outcome = await h.call('web_search', { query })
    assert.equal(outcome.status, 'error', query)
    assert.match(outcome.error?.message ?? '', message, query)
  }

  const closed = createServer()
  const port = await new Promise<number>((resolve) => closed.listen(0, '127.0.0.1', () => resolve((closed.address() as { port: number }).port)))
  await new Promise((resolve) => closed.close(resolve))
  const down = await harnessWith(t, { SEARXNG_URL: `http://127.0.0.1:${port}` })
  const outcome = await down.call('web_search', { query: 'otters' })
  assert.equal(outcome.status, 'error')
  assert.match(outcome.error?.message ?? '', /could not reach SearXNG/)
})

test('with no backend configured web_search is unavailable, and the reason names SEARXNG_URL', async (t) => {
  const h = await harnessWith(t, {})
  const entry = h.registry.getEntry('web_search')!
  assert.deepEqual(entry.requiresEnv, ['SEARXNG_URL', 'BRAVE_API_KEY'])
  const verdict = await h.availability.tool(entry)
  assert.equal(verdict.available, false)
  assert.match(verdict.reason ?? '', /^no web search backend configured: set SEARXNG_URL \(self-hosted SearXNG\) or BRAVE_API_KEY/)
  const outcome = await h.call('web_search', { query: 'otters' })
  assert.equal(outcome.status, 'unavailable')
  assert.match(outcome.content, /SEARXNG_URL/)
})

test('backend choice: explicit backend wins, else SearXNG, else Brave', async (t) => {
  assert.deepEqual(chooseBackend({}), { reason: NO_BACKEND_REASON })
  assert.deepEqual(chooseBackend({ searxngUrl: 'http://s', braveApiKey: 'k' }), { backend: 'searxng' })
  assert.deepEqual(chooseBackend({ braveApiKey: 'k' }), { backend: 'brave' })
  assert.deepEqual(chooseBackend({ backend: 'brave', searxngUrl: 'http://s', braveApiKey: 'k' }), { backend: 'brave' })
  assert.match((chooseBackend({ backend: 'brave', searxngUrl: 'http://s' }) as { reason: string }).reason, /BRAVE_API_KEY is not set/)
  assert.match((chooseBackend({ backend: 'searxng' }) as { reason: string }).reason, /SEARXNG_URL is not set/)

  // Through the config loader: a key alone makes the tool available (no network probe).
  const brave = await harnessWith(t, { BRAVE_API_KEY: 'k' })
  assert.deepEqual(await brave.availability.tool(brave.registry.getEntry('web_search')!), { available: true })
  const wrong = await harnessWith(t, { WEB_SEARCH_BACKEND: 'brave', SEARXNG_URL: searxBase })
  const verdict = await wrong.availability.tool(wrong.registry.getEntry('web_search')!)
  assert.equal(verdict.available, false)
  assert.match(verdict.reason ?? '', /BRAVE_API_KEY/)
})

test('Brave backend against a local fake: key header, count, markup stripped from snippets', async () => {
  const endpoint = `${searxBase}/brave/res/v1/web/search`
  const req = { query: 'otters', limit: 4, signal: AbortSignal.timeout(5_000), maxBytes: 1_000_000 }
  requests.length = 0
  const hits = await searchBrave('brave-key', req, endpoint)
  assert.equal(hits.length, 4)
  assert.deepEqual(hits[0], { title: 'Brave result 0', url: 'https://brave.example/0', snippet: 'Some highlighted words "otters" 0' })
  assert.equal(requests[0].searchParams.get('count'), '4')
  assert.equal(requests[0].searchParams.get('q'), 'otters')

  await assert.rejects(searchBrave('wrong-key', req, endpoint), (err: unknown) => {
    assert.ok(err instanceof SearchFailedError)
    assert.match(err.message, /Brave Search answered HTTP 401: the API key was refused; .*BRAVE_API_KEY/)
    return true
  })
})
