// Downloads one page for web_extract: redirects followed by hand one hop at a time (each hop
// re-checked by the SSRF guard), a byte cap on the decoded body, and a deadline.
import { request, type Dispatcher } from 'undici'
import type { AllowList } from './address.ts'
import { decompressed, discard, readCapped, UnsupportedEncodingError } from './body.ts'
import { checkUrl, UrlRefusedError } from './ssrf.ts'

export const USER_AGENT = 'tool-gateway/0.1 (web_extract; an AI agent tool gateway fetching a page for a model)'
const ACCEPT = 'text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.9,text/markdown;q=0.9,*/*;q=0.5'
const REDIRECTS = new Set([301, 302, 303, 307, 308])

export interface FetchOptions {
  allow: AllowList
  /** The guarded Agent: the connection-time half of the SSRF guard. */
  dispatcher: Dispatcher
  signal: AbortSignal
  maxBytes: number
  maxRedirects: number
  /** The call's trace context (traceparent, tracestate) when tracing is on, sent with every hop. */
  traceHeaders?: Readonly<Record<string, string>>
}

export interface FetchedPage {
  finalUrl: string
  status: number
  contentType: string | null
  body: Buffer
  /** The body went over maxBytes and reading stopped there: `body` holds the first maxBytes bytes. */
  cut: boolean
}

/** A per-URL failure whose message is meant for the model (refusals, HTTP-level problems). */
export class FetchFailedError extends Error {
  readonly finalUrl?: string
  constructor (message: string, finalUrl?: string) {
    super(message)
    this.name = 'FetchFailedError'
    this.finalUrl = finalUrl
  }
}

function headerOf (headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** GETs `url`, following up to `maxRedirects` redirects; throws FetchFailedError / UrlRefusedError with a message for the model. */
export async function fetchPage (url: string, options: FetchOptions): Promise<FetchedPage> {
  let current = checkUrl(url, options.allow)
  for (let hop = 0; ; hop++) {
    const response = await request(current, {
      method: 'GET',
      dispatcher: options.dispatcher,
      signal: options.signal,
      headers: { ...options.traceHeaders, 'user-agent': USER_AGENT, accept: ACCEPT, 'accept-encoding': 'gzip, br' }
      // No redirect interceptor is installed, so undici 7 hands every 3xx back to us unfollowed.
    })
    const location = headerOf(response.headers, 'location')
    if (REDIRECTS.has(response.statusCode) && location !== undefined) {
      discard(response.body)
      if (hop >= options.maxRedirects) {
        throw new FetchFailedError(`too many redirects (more than ${options.maxRedirects})`, current.href)
      }
      let next: URL
      try {
        next = new URL(location, current)
      } catch {
        throw new FetchFailedError(`the server redirected to an invalid URL: ${JSON.stringify(location.slice(0, 200))}`, current.href)
      }
      try {
        // Every hop passes the same checks as the first URL before anything connects to it.
        current = checkUrl(next, options.allow)
      } catch (err) {
        if (err instanceof UrlRefusedError) throw new FetchFailedError(`redirected to ${next.href}: ${err.message}`, next.href)
        throw err
      }
      continue
    }
    let stream
    try {
      stream = decompressed(response.body, headerOf(response.headers, 'content-encoding'))
    } catch (err) {
      if (err instanceof UnsupportedEncodingError) throw new FetchFailedError(err.message, current.href)
      throw err
    }
    const { body, cut } = await readCapped(stream, options.maxBytes)
    return {
      finalUrl: current.href,
      status: response.statusCode,
      contentType: headerOf(response.headers, 'content-type') ?? null,
      body,
      cut
    }
  }
}
