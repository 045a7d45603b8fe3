// tools/list for MCP clients: the same tools /definitions gives the same caller (available tools
// only, the key's scope, the toolset selection), as MCP Tool objects, in pages with opaque cursors.
import { ProtocolError, ProtocolErrorCode, type ListToolsResult, type Tool } from '@modelcontextprotocol/server'

export type ToolPage = ListToolsResult

/**
 * The page after `cursor`. Tools are sorted by name and a cursor names the last tool of the page
 * before, so paging stays right when tools come and go between pages (none is repeated or skipped
 * among those that stay).
 */
export function pageOf (tools: readonly Tool[], cursor: string | undefined, pageSize: number): ToolPage {
  return pageAt(tools, pageStart(tools, cursor), pageSize)
}

/** Where the page after `cursor` starts; throws the protocol's InvalidParams for a cursor no answer gave. */
export function pageStart (tools: readonly Tool[], cursor: string | undefined): number {
  return cursor === undefined ? 0 : firstAfter(tools, decodeCursor(cursor))
}

/** The page that starts at `start`, with the cursor of the next one when there is more. */
export function pageAt (tools: readonly Tool[], start: number, pageSize: number): ToolPage {
  const page = tools.slice(start, start + pageSize)
  if (start + pageSize >= tools.length) return { tools: page }
  return { tools: page, nextCursor: Buffer.from(JSON.stringify({ after: page[page.length - 1].name })).toString('base64url') }
}

/** Index of the first tool named after `name` (binary search: the list is sorted by name). */
function firstAfter (tools: readonly Tool[], name: string): number {
  let low = 0
  let high = tools.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (tools[middle].name <= name) low = middle + 1
    else high = middle
  }
  return low
}

function decodeCursor (cursor: string): string {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    const after = (decoded as { after?: unknown } | null)?.after
    if (typeof after === 'string') return after
  } catch {}
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, `invalid cursor ${JSON.stringify(cursor.slice(0, 100))}: pass the nextCursor of the previous tools/list answer as it came`)
}
