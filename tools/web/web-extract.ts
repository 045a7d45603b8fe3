// web_extract: fetches up to 5 web pages at once, behind the SSRF guard, and returns each as markdown or text for a model.
import { configOf, registry, toolResult, toolError } from '../../src/registry/index.ts'
import type { PageResult } from './lib/extract.ts'
import { HtmlConverter } from './lib/html-pool.ts'

const MAX_URLS = 5
const DEFAULT_CHAR_LIMIT = 20_000
const MAX_CHAR_LIMIT = 100_000

// Pages are converted in worker threads so that a hostile one cannot stall the gateway; one pool per
// loaded copy of this tool (its workers and piscina itself start with the first page), closed by
// dispose at shutdown.
const converter = new HtmlConverter()

/**
 * What a call runs on, loaded by the first call rather than with the gateway (undici, the SSRF
 * guard, the page pipeline): most gateways never fetch a page.
 */
async function pipeline () {
  const [address, extract, ssrf] = await Promise.all([import('./lib/address.ts'), import('./lib/extract.ts'), import('./lib/ssrf.ts')])
  return { ...address, ...extract, ...ssrf }
}

registry.register({
  name: 'web_extract',
  toolset: 'web',
  emoji: '📰',
  // GETs pages of any public host; changes nothing on our side.
  annotations: { title: 'Extract web pages', readOnly: true, openWorld: true },
  description: `Fetch 1 to ${MAX_URLS} web pages (http/https) at once and return their readable content. ` +
    'HTML pages come back as markdown of the main article (menus, ads and footers removed), with the page title; ' +
    'JSON is pretty-printed; plain text and markdown are returned as they are. Images, PDFs and other binary files ' +
    'are not supported. Each page is cut at `char_limit` characters (`truncated` tells you). Each URL gets its own ' +
    'result with an `error` when it failed, so one bad URL does not spoil the others. Addresses on private ' +
    'networks, loopback and cloud metadata endpoints are refused. Use web_search first when you do not know the URL.',
  schema: {
    parameters: {
      type: 'object',
      properties: {
        urls: {
          type: 'array',
          items: { type: 'string', minLength: 1, description: 'An absolute http:// or https:// URL.' },
          minItems: 1,
          maxItems: MAX_URLS,
          description: `The pages to read, 1 to ${MAX_URLS} absolute http(s) URLs; fetched in parallel.`
        },
        char_limit: {
          type: 'integer',
          minimum: 100,
          maximum: MAX_CHAR_LIMIT,
          default: DEFAULT_CHAR_LIMIT,
          description: `Most characters of content returned per page (default ${DEFAULT_CHAR_LIMIT}, at most ${MAX_CHAR_LIMIT}); longer pages are cut and marked truncated.`
        }
      },
      required: ['urls'],
      additionalProperties: false
    }
  },
  // Room for five pages at the largest char_limit plus their metadata.
  maxResultSizeChars: MAX_URLS * MAX_CHAR_LIMIT + 20_000,
  timeoutMs: 60_000,
  handler: async (args, ctx) => {
    const config = configOf(ctx)
    // 1 to MAX_URLS of them, and char_limit at most MAX_CHAR_LIMIT: the schema says so.
    const { urls, char_limit: charLimit = DEFAULT_CHAR_LIMIT } = args
    const { parseAllowList, createGuardedAgent, extractPage } = await pipeline()
    const allow = parseAllowList(config.web.allowHosts)
    if (allow.invalid.length > 0) ctx.logger.warn({ entries: allow.invalid }, 'web.allowHosts: entries that are neither a host, an IP nor a CIDR network are ignored')
    const agent = createGuardedAgent(allow, config.web.fetchTimeoutMs)
    let results: PageResult[]
    try {
      results = await Promise.all(urls.map((url) => extractPage(url, {
        allow,
        dispatcher: agent,
        signal: ctx.signal,
        charLimit,
        maxBytes: config.web.maxDownloadBytes,
        timeoutMs: config.web.fetchTimeoutMs,
        converter,
        traceHeaders: ctx.traceHeaders
      })))
    } finally {
      // destroy, not close: a page cut at the size limit may leave a response unread.
      agent.destroy().catch(() => {})
    }
    if (results.every((result) => result.error !== undefined)) {
      return toolError(urls.length === 1 ? results[0].error as string : 'none of the URLs could be extracted; see the error of each result', { results })
    }
    return toolResult({ results })
  },
  dispose: () => converter.close()
})
