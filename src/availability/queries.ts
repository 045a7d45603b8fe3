// Toolset-level availability questions (is a toolset usable, what does each toolset need) for the HTTP layer.
import type { RegistrySnapshot, ToolEntry } from '../registry/types.ts'
import type { Availability, AvailabilityChecker } from './checker.ts'

export interface ToolsetRequirement {
  toolset: string
  available: boolean
  /** Member tool names, sorted. */
  tools: string[]
  /** Sorted union of the members' `requiresEnv`. */
  requiresEnv: string[]
  /** Set when the toolset is unavailable. */
  reason?: string
}

function membersOf (snapshot: RegistrySnapshot, toolset: string): ToolEntry[] {
  return [...snapshot.tools.values()].filter((entry) => entry.toolset === toolset)
}

/** At least one available member makes the toolset available; otherwise say why each member is not. */
export function combine (toolset: string, members: readonly ToolEntry[], verdicts: ReadonlyMap<string, Availability>): Availability {
  if (members.length === 0) return { available: false, reason: `no tools registered in toolset "${toolset}"` }
  if (members.some((entry) => verdicts.get(entry.name)?.available)) return { available: true }
  const why = members.map((entry) => entry.name).sort()
    .map((name) => `${name}: ${verdicts.get(name)?.reason ?? 'unavailable'}`)
  return { available: false, reason: `no tool in toolset "${toolset}" is available (${why.join('; ')})` }
}

/** A toolset (registry tag) is available when at least one of its tools is. Unknown/empty toolset → { available:false, reason:'no tools registered in toolset "x"' } */
export async function toolsetAvailability (checker: AvailabilityChecker, snapshot: RegistrySnapshot, toolset: string): Promise<Availability> {
  // An MCP server `foo` is reachable as `foo` for toolset `mcp-foo`.
  const direct = membersOf(snapshot, toolset)
  const alias = snapshot.aliases.get(toolset)
  const members = direct.length === 0 && alias !== undefined ? membersOf(snapshot, alias) : direct
  const verdicts = await checker.tools(members)
  return combine(toolset, members, verdicts)
}

/** For every registry tag: { toolset, available, tools: sorted names, requiresEnv: sorted unique union, reason? } sorted by toolset name. */
export async function toolsetRequirements (checker: AvailabilityChecker, snapshot: RegistrySnapshot): Promise<ToolsetRequirement[]> {
  const groups = new Map<string, ToolEntry[]>()
  for (const entry of snapshot.tools.values()) {
    const group = groups.get(entry.toolset)
    if (group) group.push(entry)
    else groups.set(entry.toolset, [entry])
  }
  // One pass over every tool, so a probe shared across toolsets still runs once.
  const verdicts = await checker.tools(snapshot.tools.values())
  return [...groups.keys()].sort().map((toolset) => {
    const members = groups.get(toolset)!
    const verdict = combine(toolset, members, verdicts)
    const requirement: ToolsetRequirement = {
      toolset,
      available: verdict.available,
      tools: members.map((entry) => entry.name).sort(),
      requiresEnv: [...new Set(members.flatMap((entry) => entry.requiresEnv))].sort()
    }
    if (verdict.reason !== undefined) requirement.reason = verdict.reason
    return requirement
  })
}
