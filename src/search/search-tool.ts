// search_tools (toolset `discovery`): lets a model find tools on demand instead of being handed a
// catalogue of hundreds. It answers the matching tools' names, descriptions and parameter schemas.
//
// Why the gateway registers it itself (from gateway.ts) rather than a module under tools/: the
// tool needs the search index and the availability checker, which belong to the gateway, and
// tools/ may import only the registry (registry <- tools <- app). The caller's scope reaches it as
// `ctx.visible`, the predicate dispatch already applies to the caller's key (and to an /mcp
// `?toolsets=` selection): no tool outside it is ever named, described or counted.
//
// Anthropic-format definitions with defer_loading=true send the other tools deferred and this one
// not; an Anthropic batch with `tool_references: true` answers its calls with tool_reference
// blocks naming what it found, which is how Anthropic loads deferred tools.
import type { AvailabilityChecker } from '../availability/checker.ts'
import type { ToolRegistry } from '../registry/registry.ts'
import { BadRequestError } from '../shared/errors.ts'
import { toolError, toolResult } from '../registry/tool-result.ts'
import { SEARCH_TOOL_NAME, type ToolEntry } from '../registry/types.ts'
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, type ToolSearch } from './tool-search.ts'

export { SEARCH_TOOL_NAME }
export const SEARCH_TOOLSET = 'discovery'

/** Deferred tools are reachable only through a search: an answer deferring them without one is refused. */
export function requireSearchTool (names: readonly string[]): void {
  if (names.includes(SEARCH_TOOL_NAME)) return
  throw new BadRequestError(`defer_loading=true needs ${SEARCH_TOOL_NAME} in the answer, or the model could load no tool: set SEARCH_TOOL=true and keep the ${SEARCH_TOOLSET} toolset in the selection`)
}

/** The names a search_tools result lists (its text as the handler wrote it); none if it is not one, e.g. cut short. */
export function foundToolNames (content: string): string[] {
  try {
    const parsed: unknown = JSON.parse(content)
    const tools = (parsed as { tools?: unknown } | null)?.tools
    if (!Array.isArray(tools)) return []
    return tools.map((tool) => (tool as { name?: unknown } | null)?.name).filter((name): name is string => typeof name === 'string')
  } catch {
    return []
  }
}

/** Every tool, unscoped: the caller's scope is applied as a filter (see register below). */
const WHOLE_REGISTRY = { key: '', allowed: undefined }

export function registerSearchTool (registry: ToolRegistry, search: ToolSearch, availability: AvailabilityChecker): ToolEntry {
  return registry.register({
    name: SEARCH_TOOL_NAME,
    toolset: SEARCH_TOOLSET,
    emoji: '🧭',
    annotations: { title: 'Find tools for a task', readOnly: true, openWorld: false },
    description: 'Find the tools that can do a task, when the tool you need is not among those you were given. ' +
      'Describe the task in words; returns the best matching tools, best first, each with its name, description ' +
      'and parameter schema, which you can then call by name.',
    schema: {
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, maxLength: 1000, description: 'The task in words, e.g. "take a screenshot of a web page" or "open a GitHub issue".' },
          limit: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_LIMIT, default: DEFAULT_SEARCH_LIMIT, description: `How many tools at most, 1 to ${MAX_SEARCH_LIMIT}; default ${DEFAULT_SEARCH_LIMIT}.` }
        },
        required: ['query'],
        additionalProperties: false
      }
    },
    async handler (args, ctx) {
      const query = String(args.query).trim()
      if (query === '') return toolError('query is empty: describe the task in words')
      const limit = typeof args.limit === 'number' ? args.limit : DEFAULT_SEARCH_LIMIT
      const visible = ctx.visible
      // The whole registry's index, filtered: one index serves every caller of this tool. Hidden
      // tools weigh a little in the word statistics of the ranking, but never appear in it.
      const include = (name: string): boolean => name !== SEARCH_TOOL_NAME && (visible?.(name) ?? true)
      const snapshot = registry.snapshot()
      // A few more than asked: some may turn out unavailable right now.
      const hits = search.rank(WHOLE_REGISTRY, query, limit + 10, include)
      const entries = hits.map((hit) => snapshot.tools.get(hit.name)).filter((entry) => entry !== undefined)
      const verdicts = await availability.tools(entries.filter((entry) => entry.checkFn !== undefined))
      const tools = entries
        .filter((entry) => verdicts.get(entry.name)?.available ?? true)
        .slice(0, limit)
        .map((entry) => ({ name: entry.name, description: entry.description, parameters: entry.schema.parameters }))
      return toolResult({ query, tools })
    }
  })
}
