// A name in an MCP server's `tools.include` or `tools.exclude` that matches none of its tools is
// almost always a typo or a tool the server renamed: an exclude then leaves the tool served, an
// include leaves it out. Said once per distinct set (the list is re-checked on every refresh).
import { closestNames } from '../shared/closest-names.ts'
import type { Logger } from 'pino'

interface Unmatched { name: string, closest: string[] }

function unmatched (wanted: readonly string[] | undefined, names: ReadonlySet<string>): Unmatched[] {
  return (wanted ?? []).filter((name) => !names.has(name)).map((name) => ({ name, closest: closestNames(name, names) }))
}

/** Which of a server's tools are served (mcpServers.<name>.tools). */
export interface ToolFilter {
  /** Raw MCP names to keep; wins over exclude. */
  include?: readonly string[]
  exclude?: readonly string[]
}

/**
 * Warns about filter names matching no tool of `tools`, unless the same were warned about last
 * time (`previous`); answers what to pass as `previous` next time.
 */
export function warnUnmatchedFilterNames (logger: Logger, filter: ToolFilter, tools: ReadonlyArray<{ name: string }>, previous: string): string {
  const names = new Set(tools.map((tool) => tool.name))
  const include = unmatched(filter.include, names)
  const exclude = unmatched(filter.exclude, names)
  const key = JSON.stringify([include, exclude])
  if (key === previous || include.length + exclude.length === 0) return key
  const list = (items: Unmatched[]): string => items.map((item) => item.closest.length > 0 ? `"${item.name}" (did you mean ${item.closest.map((c) => `"${c}"`).join(' or ')}?)` : `"${item.name}"`).join(', ')
  const parts = [
    include.length > 0 ? `tools.include ${list(include)} match no tool of the server, so nothing is served under them` : '',
    exclude.length > 0 ? `tools.exclude ${list(exclude)} match no tool of the server, so they exclude nothing` : ''
  ].filter(Boolean)
  logger.warn({ include: include.map((i) => i.name), exclude: exclude.map((e) => e.name), tools: names.size }, parts.join('; '))
  return key
}
