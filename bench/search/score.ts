// Scores the tool search (src/search/tool-index.ts) on the labelled queries of bench/search: the
// real tools of published MCP servers (catalogue.json) under the names the gateway gives them, and
// tasks an agent might have (queries.json), each with the tool(s) that do it.
import { readFileSync } from 'node:fs'
import { mcpToolName } from '../../src/mcp-client/naming.ts'
import { ToolIndex, type SearchableTool } from '../../src/search/tool-index.ts'

interface CatalogueServer {
  server: string
  version: string
  alias: string
  tools: Array<{ name: string, description: string, inputSchema: Record<string, unknown> }>
}

interface LabelledQuery {
  query: string
  /** `<alias>/<raw tool name>`, as in the catalogue. */
  relevant: string[]
}

export interface SearchScores {
  tools: number
  queries: number
  /** Mean share of a query's relevant tools found in the first k answers. */
  recallAt1: number
  recallAt5: number
  recallAt10: number
  /** Share of queries with at least one relevant tool in the first 5: a usable tool was offered. */
  hitAt5: number
  /** Mean of 1 / rank of the first relevant tool (0 when none is in the first 10). */
  mrr: number
  /** The queries with no relevant tool in the first 5, to read when tuning. */
  misses: Array<{ query: string, relevant: string[], got: string[] }>
}

const here = new URL('.', import.meta.url)

export function loadCatalogue (): SearchableTool[] {
  const servers = JSON.parse(readFileSync(new URL('catalogue.json', here), 'utf8')) as CatalogueServer[]
  return servers.flatMap((server) => server.tools.map((tool) => ({
    name: mcpToolName(server.alias, tool.name),
    description: tool.description,
    parameters: tool.inputSchema
  })))
}

export function loadQueries (): LabelledQuery[] {
  return JSON.parse(readFileSync(new URL('queries.json', here), 'utf8')) as LabelledQuery[]
}

function nameOf (label: string): string {
  const slash = label.indexOf('/')
  return mcpToolName(label.slice(0, slash), label.slice(slash + 1))
}

export function scoreSearch (tools: SearchableTool[] = loadCatalogue(), queries: LabelledQuery[] = loadQueries()): SearchScores {
  const index = new ToolIndex(tools)
  const known = new Set(tools.map((tool) => tool.name))
  const sums = { r1: 0, r5: 0, r10: 0, rr: 0, hit5: 0 }
  const misses: SearchScores['misses'] = []
  for (const { query, relevant } of queries) {
    const wanted = new Set(relevant.map(nameOf))
    for (const name of wanted) if (!known.has(name)) throw new Error(`query "${query}" names ${name}, not in the catalogue`)
    const got = index.rank(query, 10).map((ranked) => ranked.name)
    const found = (k: number): number => got.slice(0, k).filter((name) => wanted.has(name)).length / wanted.size
    sums.r1 += found(1)
    sums.r5 += found(5)
    sums.r10 += found(10)
    const first = got.findIndex((name) => wanted.has(name))
    sums.rr += first === -1 ? 0 : 1 / (first + 1)
    if (first !== -1 && first < 5) sums.hit5++
    if (!got.slice(0, 5).some((name) => wanted.has(name))) misses.push({ query, relevant: [...wanted], got: got.slice(0, 5) })
  }
  const n = queries.length
  return { tools: tools.length, queries: n, recallAt1: sums.r1 / n, recallAt5: sums.r5 / n, recallAt10: sums.r10 / n, hitAt5: sums.hit5 / n, mrr: sums.rr / n, misses }
}
