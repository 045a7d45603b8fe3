// Tool annotations under the gateway's names (readOnly, ...) and under MCP's (readOnlyHint, ...):
// checked at registration, copied onto the entry, turned into an MCP Tool's `annotations` for MCP
// clients, and read back from an upstream MCP server's tools. One table keeps the names in step.
import { isRecord } from '../shared/objects.ts'
import type { ToolAnnotations, ToolEntry } from './types.ts'

/** MCP's ToolAnnotations (spec 2025-06-18 and later), spelled out so the registry needs no SDK. */
export interface McpToolAnnotations {
  title?: string
  readOnlyHint?: boolean
  destructiveHint?: boolean
  idempotentHint?: boolean
  openWorldHint?: boolean
}

type Hint = 'readOnly' | 'destructive' | 'idempotent' | 'openWorld'
type McpHint = 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint'

const HINTS: ReadonlyArray<readonly [Hint, McpHint]> = [
  ['readOnly', 'readOnlyHint'],
  ['destructive', 'destructiveHint'],
  ['idempotent', 'idempotentHint'],
  ['openWorld', 'openWorldHint']
]

const KNOWN = [...HINTS.map(([hint]) => hint), 'title']

const EMPTY: Readonly<ToolAnnotations> = Object.freeze({})

// A server's title is shown in /tools and passed on to MCP clients: not ours to let grow without end.
const MAX_MCP_TITLE_CHARS = 200

/** What is wrong with a registration's `annotations`, one message per field; empty when nothing is. */
export function annotationProblems (annotations: unknown): string[] {
  if (annotations === undefined) return []
  if (!isRecord(annotations)) return [`annotations must be an object such as { readOnly: true } (got ${JSON.stringify(annotations)})`]
  const problems: string[] = []
  for (const [key, value] of Object.entries(annotations)) {
    if (!KNOWN.includes(key)) {
      problems.push(`annotations.${key} is not an annotation (known: ${KNOWN.join(', ')})`)
    } else if (key === 'title' ? typeof value !== 'string' : typeof value !== 'boolean') {
      problems.push(`annotations.${key} must be a ${key === 'title' ? 'string' : 'boolean'} (got ${JSON.stringify(value)})`)
    }
  }
  return problems
}

/** A frozen copy of checked annotations, holding only what was declared (undefined values dropped). */
export function copyAnnotations (annotations: ToolAnnotations | undefined): Readonly<ToolAnnotations> {
  if (annotations === undefined) return EMPTY
  const copy: ToolAnnotations = {}
  if (annotations.title !== undefined) copy.title = annotations.title
  for (const [hint] of HINTS) {
    if (annotations[hint] !== undefined) copy[hint] = annotations[hint]
  }
  return Object.freeze(copy)
}

/**
 * The `annotations` of the MCP Tool for this entry: only the hints it declared, so an MCP client
 * applies the spec's defaults to the rest rather than a guess of ours; undefined when it declared none.
 */
export function mcpToolAnnotations (entry: Pick<ToolEntry, 'annotations'>): McpToolAnnotations | undefined {
  const { annotations } = entry
  const mapped: McpToolAnnotations = {}
  if (annotations.title !== undefined) mapped.title = annotations.title
  for (const [hint, mcpHint] of HINTS) {
    if (annotations[hint] !== undefined) mapped[mcpHint] = annotations[hint]
  }
  return Object.keys(mapped).length > 0 ? mapped : undefined
}

/**
 * The gateway's annotations for the `annotations` an MCP server gave a tool. A server's list is
 * untrusted: a hint of the wrong type is dropped (the tool is still served), unknown fields ignored.
 */
export function annotationsFromMcp (annotations: unknown): ToolAnnotations {
  const mapped: ToolAnnotations = {}
  if (!isRecord(annotations)) return mapped
  const title = annotations.title
  if (typeof title === 'string') mapped.title = title.length > MAX_MCP_TITLE_CHARS ? `${title.slice(0, MAX_MCP_TITLE_CHARS)}…` : title
  for (const [hint, mcpHint] of HINTS) {
    const value = annotations[mcpHint]
    if (typeof value === 'boolean') mapped[hint] = value
  }
  return mapped
}
