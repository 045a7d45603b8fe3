// tools/list, read so that one bad tool costs only itself. The SDK's listTools() checks the whole
// answer against its own schema and rejects all of it when a single tool has an empty, missing or
// null inputSchema: the server then kept no tool and reconnected forever. When it does, the list is
// read again with every page accepted as it comes, and each entry is judged on its own: what is
// not a named tool is left out with a reason; the schema of a named one is repaired later by the
// normaliser (src/json-schema/normalize.ts).
import { SdkError, SdkErrorCode, type Client, type RequestOptions, type StandardSchemaV1, type Tool } from '@modelcontextprotocol/client'
import { McpInvalidAnswerError } from '../shared/errors.ts'
import { isRecord } from '../shared/objects.ts'

/** A tool the server listed that is not served, and why (operators see it in /tools). */
export interface LeftOutTool {
  /** Its MCP name, or `#<position in the list>` when it has none. */
  tool: string
  reason: string
}

export interface ListedTools {
  tools: Tool[]
  leftOut: LeftOutTool[]
  /** How long the server says the list stays fresh (2026-07-28 `ttlMs`, of the first page); absent from 2025-era servers. */
  ttlMs?: number
}

/** A result's ttlMs when it is a number (2025-era results have none). */
function ttlOf (result: unknown): number | undefined {
  return isRecord(result) && typeof result.ttlMs === 'number' && Number.isFinite(result.ttlMs) ? result.ttlMs : undefined
}

// Accepts any page: the entries are checked one by one below, never as a whole.
const ANY_PAGE: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'tool-gateway',
    validate: (value) => isRecord(value) ? { value } : { issues: [{ message: 'a tools/list result must be an object' }] }
  }
}

// Clients whose server listed something the SDK refused: read leniently from then on, not twice per refresh.
const lenientClients = new WeakSet<Client>()

// The SDK's own cap against a server whose pagination never ends.
const MAX_PAGES = 64

/** One entry of a page: a tool with a name, or the reason it is not one. */
function judge (entry: unknown, position: number): Tool | LeftOutTool {
  const label = `#${position}`
  if (!isRecord(entry)) return { tool: label, reason: 'the entry is not an object' }
  if (typeof entry.name !== 'string' || entry.name === '') return { tool: label, reason: 'the tool has no name' }
  return entry as unknown as Tool
}

/**
 * Every page of tools/list. The SDK's own walk first: for a server whose list is valid it keeps
 * everything the SDK does with it (its response cache, which tools/call reads). A list it refuses
 * is read again leniently, and so is every later list of that client.
 */
export async function listAllTools (client: Client, request: RequestOptions): Promise<ListedTools> {
  if (!lenientClients.has(client)) {
    try {
      // Always from the server: the gateway decides itself when its copy is stale (ttl-refresh.ts),
      // and the SDK's cache would answer a list whose ttlMs has not run out without asking.
      const result = await client.listTools(undefined, { ...request, cacheMode: 'refresh' })
      return { tools: result.tools, leftOut: [], ttlMs: ttlOf(result) }
    } catch (err) {
      if (!(err instanceof SdkError && err.code === SdkErrorCode.InvalidResult)) throw err
      lenientClients.add(client)
    }
  }
  return listLeniently(client, request)
}

/** Every page of tools/list, each entry judged on its own. */
async function listLeniently (client: Client, request: RequestOptions): Promise<ListedTools> {
  const listed: ListedTools = { tools: [], leftOut: [] }
  let cursor: string | undefined
  let previous: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.request({ method: 'tools/list', ...(cursor === undefined ? {} : { params: { cursor } }) }, ANY_PAGE, request)
    if (page === 0) listed.ttlMs = ttlOf(result)
    const entries = Array.isArray(result.tools) ? result.tools : []
    // A server that answers the same page for the same cursor again would loop until the cap.
    const fingerprint = JSON.stringify(entries)
    if (cursor !== undefined && fingerprint === previous) break
    previous = fingerprint
    for (const entry of entries) {
      const judged = judge(entry, listed.tools.length + listed.leftOut.length)
      if ('reason' in judged) listed.leftOut.push(judged)
      else listed.tools.push(judged)
    }
    cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined
    if (cursor === undefined) return listed
  }
  throw new McpInvalidAnswerError(`tools/list did not end after ${MAX_PAGES} pages`)
}
