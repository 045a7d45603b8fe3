// One URL of web_extract, start to finish: guarded fetch, content-type dispatch, conversion and
// the per-page character cap. Never throws: every failure becomes the result's `error`.
import type { Dispatcher } from 'undici'
import type { AllowList } from './address.ts'
import { cutAt, decodeBody, formatText, kindOf, parseMediaType, type ContentKind } from './content.ts'
import { fetchPage, FetchFailedError, type FetchedPage } from './fetch-page.ts'
import { ConversionStoppedError, type HtmlConverter } from './html-pool.ts'
import { UrlRefusedError } from './ssrf.ts'

export const MAX_REDIRECTS = 5
/**
 * JSON and text bodies longer than this are formatted in a worker too: the work is linear, but a
 * body at the download limit took up to 2 s (5 MB of nested JSON arrays) on the event loop.
 */
export const INLINE_TEXT_CHARS = 65_536

export interface PageResult {
  url: string
  /** Where the content came from after redirects; null when nothing was fetched. */
  final_url: string | null
  /** HTTP status of the final response; null when there was none. */
  status: number | null
  title: string | null
  content_type: string | null
  content: string
  truncated: boolean
  /** Why content is incomplete: cut at char_limit, or the download stopped at the size limit. */
  truncated_reason?: 'char_limit' | 'download_limit'
  error?: string
}

export interface ExtractOptions {
  allow: AllowList
  dispatcher: Dispatcher
  /** The call's signal (timeout of the tool, client gone, shutdown). */
  signal: AbortSignal
  charLimit: number
  maxBytes: number
  /** Deadline of this one page: connection, redirects and body. */
  timeoutMs: number
  /** Converts HTML (and formats large JSON and text) off the event loop; `signal` stops it. */
  converter: HtmlConverter
  /** The call's trace context, sent to the page's server when tracing is on. */
  traceHeaders?: Readonly<Record<string, string>>
}

/** A UrlRefusedError raised inside the connection (the guarded DNS lookup) arrives wrapped, or not. */
function refusalIn (err: unknown): UrlRefusedError | undefined {
  for (let current = err, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof UrlRefusedError) return current
  }
  return undefined
}

function failure (url: string, error: string, finalUrl: string | null = null): PageResult {
  return { url, final_url: finalUrl, status: null, title: null, content_type: null, content: '', truncated: false, error }
}

function describeNetworkError (err: unknown): string {
  const error = err as NodeJS.ErrnoException
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return 'could not fetch: the host name does not resolve'
  if (error.code === 'ECONNREFUSED') return 'could not fetch: connection refused'
  return `could not fetch: ${error.message || error.code || 'network error'}`
}

/** The guarded fetch within the page's own deadline; every failure becomes the page's result. */
async function fetchWithin (url: string, options: ExtractOptions): Promise<{ page: FetchedPage } | { failed: PageResult }> {
  const deadline = AbortSignal.timeout(options.timeoutMs)
  const signal = AbortSignal.any([options.signal, deadline])
  try {
    const { allow, dispatcher, maxBytes, traceHeaders } = options
    return { page: await fetchPage(url, { allow, dispatcher, signal, maxBytes, maxRedirects: MAX_REDIRECTS, traceHeaders }) }
  } catch (err) {
    if (err instanceof FetchFailedError) return { failed: failure(url, err.message, err.finalUrl ?? null) }
    const refused = refusalIn(err)
    if (refused !== undefined) return { failed: failure(url, refused.message) }
    if (options.signal.aborted) return { failed: failure(url, 'cancelled before the page was read') }
    if (deadline.aborted) return { failed: failure(url, `timed out after ${options.timeoutMs} ms (the download deadline)`) }
    return { failed: failure(url, describeNetworkError(err)) }
  }
}

interface Converted {
  content: string
  title: string | null
  /** HTML conversion stopped early: the rest could not be shown anyway. */
  pruned: boolean
  /** The HTML markup was too large and only its beginning was converted. */
  capped: boolean
}

/** The page as a model reads it: markdown of the HTML (converted in a worker), pretty JSON, or tidied text. */
async function convert (text: string, kind: Exclude<ContentKind, 'unsupported'>, pageUrl: string, options: ExtractOptions): Promise<Converted | { error: string }> {
  try {
    if (kind !== 'html') {
      const content = text.length <= INLINE_TEXT_CHARS ? formatText(text, kind) : await options.converter.format(text, kind, options.signal)
      return { content, title: null, pruned: false, capped: false }
    }
    const extracted = await options.converter.convert({ html: text, pageUrl, charLimit: options.charLimit }, options.signal)
    return { content: extracted.markdown, title: extracted.title, pruned: extracted.pruned, capped: extracted.capped }
  } catch (err) {
    if (err instanceof ConversionStoppedError) return { error: err.message }
    return { error: `could not convert the ${kind === 'html' ? 'HTML page' : 'page'}: ${(err as Error).message}` }
  }
}

/** Puts the content into the result, cut at char_limit, marked when it is incomplete and why. */
function fitContent (result: PageResult, converted: Converted, downloadCut: boolean, options: ExtractOptions): void {
  let content = converted.content
  if (content.length > options.charLimit || converted.pruned) {
    const shown = cutAt(content, options.charLimit)
    const rest = converted.pruned ? 'the rest of the page is not shown' : `${content.length - shown.length} more characters not shown`
    content = `${shown}\n\n[truncated at char_limit=${options.charLimit}: ${rest}]`
    result.truncated = true
    result.truncated_reason = 'char_limit'
  } else if (downloadCut || converted.capped) {
    const why = downloadCut ? `larger than the ${options.maxBytes}-byte download limit` : 'too large to process whole'
    content += `\n\n[truncated: the page is ${why}; only its beginning was read]`
    result.truncated = true
    result.truncated_reason = 'download_limit'
  }
  result.content = content
}

/** Fetches and converts one page within its own deadline. */
export async function extractPage (url: string, options: ExtractOptions): Promise<PageResult> {
  const fetched = await fetchWithin(url, options)
  if ('failed' in fetched) return fetched.failed
  const { page } = fetched
  const type = parseMediaType(page.contentType)
  const kind = kindOf(type, page.body)
  const result: PageResult = {
    url,
    final_url: page.finalUrl,
    status: page.status,
    title: null,
    content_type: page.contentType,
    content: '',
    truncated: false
  }
  if (kind === 'unsupported') {
    const what = type.essence === '' ? 'content without a Content-Type that is not text' : `content of type ${type.essence}`
    result.error = `cannot extract ${what}: web_extract reads HTML, plain text, markdown and JSON only`
    return result
  }
  const converted = await convert(decodeBody(page.body, type, kind, page.cut), kind, page.finalUrl, options)
  if ('error' in converted) {
    result.error = converted.error
    return result
  }
  result.title = converted.title
  fitContent(result, converted, page.cut, options)
  if (page.status < 200 || page.status > 299) result.error = `the server answered HTTP ${page.status}`
  return result
}
