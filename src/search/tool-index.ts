// Ranks tools for a task written in words: a full-text index (minisearch, BM25+) over each tool's
// name (split on `_`, `-` and camelCase, so `kubectl_logs` and `getUserProfile` are words), its
// description and its parameters' names and descriptions. Knows nothing of the registry: it takes
// plain documents, so the search benchmark (bench/search) scores exactly what the gateway serves.
import MiniSearch from 'minisearch'
import { isRecord } from '../shared/objects.ts'

/** What is searched of one tool. */
export interface SearchableTool {
  name: string
  description: string
  /** The JSON Schema of its arguments (`type: "object"`); only property names and descriptions are read. */
  parameters: Record<string, unknown>
}

// Words that say nothing about which tool fits, in a task or a description.
const STOP_WORDS = new Set([
  'a', 'an', 'and', 'any', 'are', 'as', 'at', 'be', 'by', 'can', 'do', 'for', 'from', 'i', 'if', 'in', 'into',
  'is', 'it', 'its', 'me', 'my', 'of', 'on', 'or', 'our', 'so', 'some', 'that', 'the', 'their', 'them', 'then',
  'this', 'to', 'use', 'using', 'want', 'we', 'what', 'when', 'which', 'with', 'you', 'your', 'need', 'please',
  'mcp', 'tool'
])

/** Splits `getUserProfile`, `kubectl_logs`, `API-post-search` and prose alike into words. */
export function splitWords (text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0)
}

/** Lower case, no stop word, plural folded onto singular (`files` finds `file`, `entities` finds `entity`). */
function normaliseTerm (word: string): string | null {
  const term = word.toLowerCase()
  if (STOP_WORDS.has(term)) return null
  if (term.length > 4 && term.endsWith('ies')) return `${term.slice(0, -3)}y`
  if (term.length > 3 && term.endsWith('s') && !term.endsWith('ss') && !term.endsWith('us')) return term.slice(0, -1)
  return term
}

/** Property names and descriptions, one level deep and into array items, as one text. */
function parameterText (schema: Record<string, unknown>, depth = 0): string {
  const properties = schema.properties
  if (!isRecord(properties) || depth > 2) return ''
  const parts: string[] = []
  for (const [name, property] of Object.entries(properties)) {
    parts.push(name)
    if (!isRecord(property)) continue
    if (typeof property.description === 'string') parts.push(property.description)
    parts.push(parameterText(property, depth + 1))
    if (isRecord(property.items)) parts.push(parameterText(property.items, depth + 1))
  }
  return parts.join(' ')
}

/**
 * Tuned on bench/search (see its README; the figures vary by 1-2 points over boosts 1-5, so these are
 * a middle, not a peak): a tool's name says most about what it does, its
 * description comes next, its parameters last. Prefix matching lets `screenshot` find
 * `screenshots`; a small edit distance forgives a typo in a longer word only.
 */
const SEARCH_OPTIONS = {
  boost: { name: 2, description: 1, parameters: 0.5 },
  prefix: (term: string) => term.length >= 4,
  fuzzy: (term: string) => (term.length >= 6 ? 1 : false),
  weights: { fuzzy: 0.3, prefix: 0.5 },
  combineWith: 'OR' as const
}

export interface RankedTool {
  name: string
  score: number
}

/** An immutable index of some tools; build one per set of tools and ask it many times. */
export class ToolIndex {
  readonly #search: MiniSearch<{ id: number, name: string, description: string, parameters: string }>
  readonly #names: string[]

  /** `options` replaces the tuned search options (bench/search tries others with it). */
  constructor (tools: Iterable<SearchableTool>, options: Partial<typeof SEARCH_OPTIONS> = {}) {
    this.#names = []
    this.#search = new MiniSearch({
      fields: ['name', 'description', 'parameters'],
      tokenize: splitWords,
      processTerm: normaliseTerm,
      searchOptions: { ...SEARCH_OPTIONS, ...options }
    })
    const documents = []
    for (const tool of tools) {
      documents.push({ id: this.#names.length, name: tool.name, description: tool.description, parameters: parameterText(tool.parameters) })
      this.#names.push(tool.name)
    }
    this.#search.addAll(documents)
  }

  get size (): number {
    return this.#names.length
  }

  /** The `limit` best tools for `query` among those `include` accepts (all when absent), best first. */
  rank (query: string, limit: number, include?: (name: string) => boolean): RankedTool[] {
    const names = this.#names
    const filter = include === undefined ? undefined : (result: { id: number }) => include(names[result.id]!)
    const results = this.#search.search(query, filter === undefined ? {} : { filter })
    return results.slice(0, limit).map((result) => ({ name: names[result.id as number]!, score: result.score }))
  }
}
