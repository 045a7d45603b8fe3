// web_search backends: SearXNG (self-hosted, JSON API) and Brave Search (keyed API), both
// normalised to { title, url, snippet }. Each backend is a plain function taking its endpoint,
// which is also the seam tests use to point Brave at a local fake.
// The backend URL is configured by the operator and trusted: it does NOT go through the SSRF guard,
// because the usual setup is a SearXNG on the operator's own private network or loopback.
import type { ToolConfig } from '../../../src/registry/index.ts'
import { readCapped } from './body.ts'

export interface SearchHit {
  title: string
  url: string
  snippet: string
}

export type BackendName = 'searxng' | 'brave'

export interface SearchRequest {
  query: string
  limit: number
  signal: AbortSignal
  /** Cap on the backend's answer. */
  maxBytes: number
  /** The call's trace context (traceparent, tracestate) when tracing is on. */
  traceHeaders?: Readonly<Record<string, string>>
}

/** A backend failure; the message is written for the model and names the backend. */
export class SearchFailedError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'SearchFailedError'
  }
}

export const NO_BACKEND_REASON = 'no web search backend configured: set SEARXNG_URL (self-hosted SearXNG) or BRAVE_API_KEY'
export const BRAVE_ENDPOINT = 'https://api.search.brave.com/res/v1/web/search'

type SearchConfig = ToolConfig['web']['search']

/** The backend to use: the one named in config, else SearXNG when its URL is set, else Brave when its key is. */
export function chooseBackend (search: SearchConfig): { backend: BackendName } | { reason: string } {
  if (search.backend === 'searxng') {
    return search.searxngUrl ? { backend: 'searxng' } : { reason: 'WEB_SEARCH_BACKEND is searxng but SEARXNG_URL is not set' }
  }
  if (search.backend === 'brave') {
    return search.braveApiKey ? { backend: 'brave' } : { reason: 'WEB_SEARCH_BACKEND is brave but BRAVE_API_KEY is not set' }
  }
  if (search.searxngUrl) return { backend: 'searxng' }
  if (search.braveApiKey) return { backend: 'brave' }
  return { reason: NO_BACKEND_REASON }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", nbsp: ' ' }

/** Snippets may carry highlighting markup (Brave wraps matches in <strong>); the model wants text. */
function plain (value: unknown): string {
  if (typeof value !== 'string') return ''
  return value
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|apos|#39|nbsp);/g, (_m, name: string) => ENTITIES[name])
    .replace(/\s+/g, ' ')
    .trim()
}

function normalise (items: unknown, snippetField: string, limit: number): SearchHit[] {
  if (!Array.isArray(items)) return []
  const hits: SearchHit[] = []
  for (const item of items) {
    if (typeof item !== 'object' || item === null) continue
    const record = item as Record<string, unknown>
    if (typeof record.url !== 'string' || !/^https?:\/\//i.test(record.url)) continue
    hits.push({ title: plain(record.title), url: record.url, snippet: plain(record[snippetField]) })
    if (hits.length >= limit) break
  }
  return hits
}

async function getJson (label: string, url: URL, headers: Record<string, string>, req: SearchRequest, explain: (status: number) => string | undefined): Promise<unknown> {
  // undici loads with the first search, not with the gateway (it is cached after that).
  const { request } = await import('undici')
  let response
  try {
    response = await request(url, { method: 'GET', headers: { ...req.traceHeaders, accept: 'application/json', ...headers }, signal: req.signal })
  } catch (err) {
    if (req.signal.aborted) throw err
    throw new SearchFailedError(`could not reach ${label}: ${(err as Error).message}`)
  }
  let body: Buffer
  try {
    body = (await readCapped(response.body, req.maxBytes)).body
  } catch (err) {
    if (req.signal.aborted) throw err
    throw new SearchFailedError(`${label} broke off its answer: ${(err as Error).message}`)
  }
  if (response.statusCode < 200 || response.statusCode > 299) {
    const hint = explain(response.statusCode)
    throw new SearchFailedError(`${label} answered HTTP ${response.statusCode}${hint ? `: ${hint}` : ''}`)
  }
  try {
    return JSON.parse(body.toString('utf8'))
  } catch {
    throw new SearchFailedError(`${label} answered with something that is not JSON`)
  }
}

/** GET `<baseUrl>/search?q=…&format=json` on a SearXNG instance. */
export async function searchSearxng (baseUrl: string, req: SearchRequest): Promise<SearchHit[]> {
  let url: URL
  try {
    // A base with a path (https://host/searx) keeps it: resolve against it as a folder.
    url = new URL('search', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`)
  } catch {
    throw new SearchFailedError('SEARXNG_URL is not a valid URL; the operator must fix the configuration')
  }
  url.searchParams.set('q', req.query)
  url.searchParams.set('format', 'json')
  const data = await getJson('SearXNG', url, {}, req, (status) => status === 403
    ? 'the instance refuses the JSON format; the operator must add "json" to search.formats in its settings.yml'
    : status === 429 ? 'rate limited, try again later' : undefined)
  return normalise((data as { results?: unknown } | null)?.results, 'content', req.limit)
}

/** GET the Brave Search web endpoint; `endpoint` is the real API unless a test passes its fake. */
export async function searchBrave (apiKey: string, req: SearchRequest, endpoint: string = BRAVE_ENDPOINT): Promise<SearchHit[]> {
  const url = new URL(endpoint)
  url.searchParams.set('q', req.query)
  url.searchParams.set('count', String(Math.min(req.limit, 20)))
  const data = await getJson('Brave Search', url, { 'x-subscription-token': apiKey }, req, (status) =>
    status === 401 || status === 403
      ? 'the API key was refused; the operator must check BRAVE_API_KEY'
      : status === 429 ? 'rate limited or out of quota, try again later' : undefined)
  const web = (data as { web?: { results?: unknown } } | null)?.web
  return normalise(web?.results, 'description', req.limit)
}
