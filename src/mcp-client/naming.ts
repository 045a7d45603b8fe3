// Names of MCP tools in the registry: mcp__<server>__<tool>, sanitised, shortened past 64
// characters, and the fail-closed check for two raw names that end up with the same name.
import { createHash } from 'node:crypto'

/** The OpenAI and Anthropic limit on a function name. */
export const MAX_TOOL_NAME_LENGTH = 64
const HASH_CHARS = 8

/** Every character outside [A-Za-z0-9_] becomes `_`. */
export function sanitizeNamePart (part: string): string {
  return part.replace(/[^A-Za-z0-9_]/g, '_')
}

/**
 * `mcp__<server>__<tool>`, sanitised. Past 64 characters it keeps a readable prefix and appends
 * `_` plus 8 hex characters of a hash of the raw pair, so the result is stable across restarts
 * and two long names that share a prefix still differ.
 */
export function mcpToolName (server: string, tool: string): string {
  const full = `mcp__${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`
  if (full.length <= MAX_TOOL_NAME_LENGTH) return full
  // A NUL separator: no pair of strings without NUL can hash like another pair.
  const hash = createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, HASH_CHARS)
  return `${full.slice(0, MAX_TOOL_NAME_LENGTH - HASH_CHARS - 1)}_${hash}`
}

/** The toolset tag of a server's tools (`mcp-foo`); `-` is kept since toolset names may carry it. */
export function mcpToolsetName (server: string): string {
  return `mcp-${server.replace(/[^A-Za-z0-9_-]/g, '_')}`
}

export interface NameCollision {
  name: string
  /** The raw tool names that all map to `name`, in the server's order. */
  raw: string[]
}

export interface NameAssignment {
  /** raw tool name → registry name, only for names that map to exactly one raw name. */
  names: Map<string, string>
  /** Names claimed by several raw names: none of those tools may register (fail closed, never last-wins). */
  collisions: NameCollision[]
}

/** Registry names for a server's raw tool names; raw names listed twice count once. */
export function assignToolNames (server: string, rawNames: Iterable<string>): NameAssignment {
  const claims = new Map<string, string[]>()
  for (const raw of new Set(rawNames)) {
    const name = mcpToolName(server, raw)
    const list = claims.get(name)
    if (list) list.push(raw)
    else claims.set(name, [raw])
  }
  const names = new Map<string, string>()
  const collisions: NameCollision[] = []
  for (const [name, raw] of claims) {
    if (raw.length === 1) names.set(raw[0], name)
    else collisions.push({ name, raw })
  }
  return { names, collisions }
}
