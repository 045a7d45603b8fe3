// web_search: searches the web through the operator's backend (SearXNG or Brave Search) and returns titles, URLs and snippets.
import { configOf, registry, toolResult, toolError } from '../../src/registry/index.ts'
import { chooseBackend, searchBrave, searchSearxng, SearchFailedError } from './lib/search.ts'

const DEFAULT_LIMIT = 5
const MAX_LIMIT = 20

registry.register({
  name: 'web_search',
  toolset: 'web',
  emoji: '🔎',
  // Asks a search engine about the open web; changes nothing.
  annotations: { title: 'Search the web', readOnly: true, openWorld: true },
  description: 'Search the web. Returns up to `limit` results, each with a title, a URL and a short snippet. ' +
    'Use it to find pages about a topic or to check current facts, then read the most promising pages with ' +
    'web_extract (snippets are short and may be out of context). Results come from the search backend the ' +
    'operator configured (a self-hosted SearXNG instance or the Brave Search API; either one is enough).',
  schema: {
    parameters: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          maxLength: 400,
          description: 'What to search for, as you would type it into a search engine (keywords or a short question).'
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_LIMIT,
          default: DEFAULT_LIMIT,
          description: `How many results to return, 1 to ${MAX_LIMIT}; default ${DEFAULT_LIMIT}.`
        }
      },
      required: ['query'],
      additionalProperties: false
    }
  },
  requiresEnv: ['SEARXNG_URL', 'BRAVE_API_KEY'],
  maxResultSizeChars: 50_000,
  timeoutMs: 30_000,
  // Configuration only, no network probe: a probe would spend the backend's quota on every pass.
  checkFn: (ctx) => {
    const choice = chooseBackend(configOf(ctx).web.search)
    return 'reason' in choice ? { available: false, reason: choice.reason } : true
  },
  handler: async (args, ctx) => {
    const config = configOf(ctx)
    const choice = chooseBackend(config.web.search)
    if ('reason' in choice) return toolError(choice.reason)
    // minLength does not refuse a query of spaces.
    const query = args.query.trim()
    if (query === '') return toolError('query is empty: give the words to search for')
    const { limit = DEFAULT_LIMIT } = args
    const timeout = AbortSignal.timeout(config.web.fetchTimeoutMs)
    const req = { query, limit, signal: AbortSignal.any([ctx.signal, timeout]), maxBytes: config.web.maxDownloadBytes, traceHeaders: ctx.traceHeaders }
    try {
      const results = choice.backend === 'searxng'
        ? await searchSearxng(config.web.search.searxngUrl as string, req)
        : await searchBrave(config.web.search.braveApiKey as string, req)
      return toolResult({ query, backend: choice.backend, results })
    } catch (err) {
      if (err instanceof SearchFailedError) {
        ctx.logger.warn({ backend: choice.backend, err: err.message }, 'web_search: backend failed')
        return toolError(`web search failed: ${err.message}`, { backend: choice.backend })
      }
      if (timeout.aborted && !ctx.signal.aborted) {
        return toolError(`web search failed: the ${choice.backend} backend did not answer within ${config.web.fetchTimeoutMs} ms`, { backend: choice.backend })
      }
      throw err
    }
  }
})
