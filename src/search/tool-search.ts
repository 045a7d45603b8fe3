// The gateway's tool search: one ToolIndex per registry snapshot and key scope, built on the first
// search that needs it and dropped with its snapshot (a WeakMap), so a registry change rebuilds
// lazily and a request never indexes. Serves GET /definitions?query= and the search_tools tool.
import { BadRequestError } from '../shared/errors.ts'
import type { ToolRegistry } from '../registry/registry.ts'
import type { RegistrySnapshot } from '../registry/types.ts'
import { ToolIndex, type RankedTool } from './tool-index.ts'
import { etagOf } from '../definitions/etag.ts'

export const DEFAULT_SEARCH_LIMIT = 10
export const MAX_SEARCH_LIMIT = 50
/** Longer tasks add little to a ranking and cost index time: cut rather than refused. */
const MAX_QUERY_CHARS = 1000

/** The tools one caller may search: `allowed` undefined = every tool; `key` tells scopes apart. */
export interface SearchScope {
  key: string
  allowed: ReadonlySet<string> | undefined
}

/** A query the caller typed, or a 400 that says what is wrong with it. */
export function checkedQuery (query: string | undefined, limit: string | undefined): { query: string, limit: number } | undefined {
  if (query === undefined) {
    if (limit !== undefined) throw new BadRequestError('limit applies to a search: add query=<the task in words>, or leave limit out for every tool')
    return undefined
  }
  const text = query.trim().slice(0, MAX_QUERY_CHARS)
  if (text === '') throw new BadRequestError('query is empty: describe the task in words (e.g. query=take a screenshot of a page), or leave query out for every tool')
  if (limit === undefined) return { query: text, limit: DEFAULT_SEARCH_LIMIT }
  const count = /^\s*\d{1,3}\s*$/.test(limit) ? Number(limit) : Number.NaN
  if (!(count >= 1 && count <= MAX_SEARCH_LIMIT)) throw new BadRequestError(`limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT} (got ${JSON.stringify(limit)})`)
  return { query: text, limit: count }
}

export class ToolSearch {
  readonly #registry: ToolRegistry
  readonly #indexes = new WeakMap<RegistrySnapshot, Map<string, ToolIndex>>()
  #built = 0

  constructor (registry: ToolRegistry) {
    this.#registry = registry
  }

  /** How many indexes were built so far: one per registry snapshot and key scope searched. */
  get indexesBuilt (): number {
    return this.#built
  }

  /** The `limit` best tools for `query` within `scope`, among those `include` accepts, best first. */
  rank (scope: SearchScope, query: string, limit: number, include?: (name: string) => boolean): RankedTool[] {
    return this.#index(scope).rank(query, limit, include)
  }

  #index (scope: SearchScope): ToolIndex {
    const snapshot = this.#registry.snapshot()
    let byScope = this.#indexes.get(snapshot)
    if (byScope === undefined) {
      byScope = new Map()
      this.#indexes.set(snapshot, byScope)
    }
    let index = byScope.get(scope.key)
    if (index === undefined) {
      const entries = [...snapshot.tools.values()].filter((entry) => scope.allowed?.has(entry.name) ?? true)
      index = new ToolIndex(entries.map((entry) => ({ name: entry.name, description: entry.description, parameters: entry.schema.parameters })))
      byScope.set(scope.key, index)
      this.#built++
    }
    return index
  }
}

/** A named tool list as served by GET /definitions: the JSON bytes and their ETag. */
export interface RankedPayload<T> {
  tools: T[]
  bytes: Buffer
  etag: string
}

/**
 * `tools` (one format's definitions, any order) cut to the best `limit` for `query` and put best
 * first. `nameOf` reads a definition's name, so any format (chat, anthropic, ...) can be ranked.
 * The ETag is the hash of the answer, so If-None-Match works as for the whole list.
 */
export function rankDefinitions<T> (search: ToolSearch, scope: SearchScope, tools: readonly T[], nameOf: (tool: T) => string,
  query: string, limit: number): RankedPayload<T> {
  const byName = new Map(tools.map((tool) => [nameOf(tool), tool]))
  const ranked = search.rank(scope, query, limit, (name) => byName.has(name)).map((hit) => byName.get(hit.name)!)
  const json = JSON.stringify(ranked)
  const etag = etagOf(json)
  return { tools: ranked, bytes: Buffer.from(json, 'utf8'), etag }
}
