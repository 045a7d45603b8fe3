// Expands a toolset into its tool names by following includes; pure, so the catalog and the tests
// can feed it any lookup (static definitions, config, the live registry).
import type { ToolsetDefinition } from './builtin.ts'

export type ToolsetLookup = (name: string) => ToolsetDefinition | undefined

/**
 * The tools of toolset `name` and of everything it includes, sorted and unique. `visited` is
 * shared across siblings and across calls that pass the same set, so a diamond is expanded once and
 * a cycle (self-include included) stops. A name the lookup does not know contributes nothing: the
 * caller decides whether that is an error. A toolset already in `visited` contributes nothing
 * either, so pass one set only when the results are united.
 */
export function resolveToolset (name: string, lookup: ToolsetLookup, visited: Set<string> = new Set()): string[] {
  const tools = new Set<string>()
  collect(name, lookup, visited, tools)
  return [...tools].sort()
}

function collect (name: string, lookup: ToolsetLookup, visited: Set<string>, tools: Set<string>): void {
  if (visited.has(name)) return
  // Mark before descending: that is what stops a cycle back to this toolset.
  visited.add(name)
  const definition = lookup(name)
  if (definition === undefined) return
  for (const tool of definition.tools) tools.add(tool)
  for (const include of definition.includes) collect(include, lookup, visited, tools)
}
