// What GET /toolsets tells an operator: every toolset the caller may see, its resolved members,
// includes, aliases, and whether any of its tools works now (and why not), with the MCP server
// behind it when there is one.
import { Type, type Static } from 'typebox'
import type { KeyScope } from '../access/key-scope.ts'
import type { Availability } from '../availability/checker.ts'
import type { Gateway } from '../core/gateway.ts'
import type { McpServerStatus } from '../mcp-client/manager.ts'
import type { RegistrySnapshot } from '../registry/types.ts'
import type { ToolsetInfo } from '../toolsets/catalog.ts'
import { unknownToolsetReferences, type UnknownToolsetReference } from '../toolsets/references.ts'
import { McpServerState } from './tools.ts'

const ToolsetView = Type.Object({
  name: Type.String({ description: 'The toolset name, usable in GET /definitions?toolsets=.' }),
  kind: Type.Enum(['builtin', 'custom', 'registry'], { description: 'Built in, defined in config, or a tag of registered tools (plugin, MCP).' }),
  description: Type.String({ description: 'What the toolset is for.' }),
  tools: Type.Array(Type.String(), { description: 'Registered tools it resolves to (includes followed), sorted.' }),
  includes: Type.Array(Type.String(), { description: 'Toolsets it includes.' }),
  aliases: Type.Array(Type.String(), { description: 'Other names for it.' }),
  available: Type.Boolean({ description: 'True when at least one of its tools is available.' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why no tool of it is available; null when available.' }),
  mcpServer: Type.Optional(McpServerState)
}, { description: 'One toolset.' })

const UnknownReference = Type.Object({
  where: Type.String({ description: 'Where the configuration names it, e.g. `toolsets.research.includes`.' }),
  toolset: Type.String({ description: 'The name as written.' }),
  closest: Type.Array(Type.String(), { description: 'The valid toolset names closest to it, best first.' })
}, { description: 'A toolset named by the configuration that does not exist: it grants or includes nothing.' })

export const ToolsetList = Type.Object({
  toolsets: Type.Array(ToolsetView, { description: 'Sorted by name.' }),
  unknownReferences: Type.Array(UnknownReference, { description: 'Toolsets the configuration names that do not exist (empty for a key limited to toolsets).' })
}, { description: 'Every toolset the caller may see.' })

/** Toolsets the configuration names that do not exist now; configured MCP servers count as existing. */
export function unknownConfigToolsets (gateway: Gateway): UnknownToolsetReference[] {
  const servers = gateway.mcp.states().flatMap((status) => [status.toolset, status.server])
  return unknownToolsetReferences(gateway.config, gateway.catalog, gateway.registry.snapshot(), servers)
}

/** Why no tool of a toolset is available, or null when one is (REFERENCE §4: one available tool is enough). */
function unavailableReason (info: ToolsetInfo, verdicts: ReadonlyMap<string, Availability>, server: McpServerStatus | undefined): string | null {
  if (info.tools.some((tool) => verdicts.get(tool)?.available)) return null
  if (server !== undefined && server.state !== 'connected') {
    return `MCP server "${server.server}" is ${server.state}${server.lastError ? `: ${server.lastError}` : ''}`
  }
  if (info.tools.length === 0) return 'no registered tools'
  const why = [...info.tools].sort().map((tool) => `${tool}: ${verdicts.get(tool)?.reason ?? 'unavailable'}`)
  return `no tool in toolset "${info.name}" is available (${why.join('; ')})`
}

/**
 * A limited key's own toolsets and every toolset they include, aliases followed; undefined when one
 * of them is `all` / `*`. A composite that merely contains some of the key's tools stays hidden: its
 * description and includes would name what lies outside the key's scope.
 */
function reachableToolsets (gateway: Gateway, snapshot: RegistrySnapshot, own: readonly string[]): Set<string> | undefined {
  const pending = own.flatMap((entry) => entry.split(',').map((name) => name.trim()).filter((name) => name !== ''))
  if (pending.some((name) => name === 'all' || name === '*')) return undefined
  const seen = new Set<string>()
  while (pending.length > 0) {
    const name = pending.pop()!
    if (seen.has(name)) continue
    seen.add(name)
    const target = snapshot.aliases.get(name)
    if (target !== undefined) pending.push(target)
    pending.push(...gateway.catalog.definition(name, snapshot)?.includes ?? [])
  }
  return seen
}

/** The toolsets a caller may see: every one when unlimited, else those its key names or they include. */
function visibleToolsets (gateway: Gateway, scope: KeyScope): ToolsetInfo[] {
  const snapshot = gateway.registry.snapshot()
  const allowed = scope.allowed()
  const all = gateway.catalog.describe(snapshot)
  if (allowed === undefined) return all
  const reachable = reachableToolsets(gateway, snapshot, scope.toolsets)
  return all
    .filter((info) => reachable === undefined ? info.tools.some((t) => allowed.has(t)) : reachable.has(info.name))
    .map((info) => ({ ...info, tools: info.tools.filter((t) => allowed.has(t)) }))
}

export async function toolsetsReport (gateway: Gateway, scope: KeyScope): Promise<Static<typeof ToolsetList>> {
  const snapshot = gateway.registry.snapshot()
  const infos = visibleToolsets(gateway, scope)
  const servers = new Map(gateway.mcp.states().map((status) => [status.toolset, status]))
  // A server that has no tools right now (down since start, disabled) still gets its row, so an
  // operator sees it and why; a key limited to toolsets does not see other servers.
  if (!scope.restricted) {
    const listed = new Set(infos.map((info) => info.name))
    for (const status of servers.values()) {
      if (listed.has(status.toolset)) continue
      infos.push({ name: status.toolset, kind: 'registry', description: `Tools of MCP server "${status.server}".`, tools: [], includes: [], aliases: [], missingIncludes: [] })
    }
    infos.sort((a, b) => (a.name < b.name ? -1 : 1))
  }
  const verdicts = await gateway.availability.tools(infos.flatMap((info) => info.tools.map((t) => snapshot.tools.get(t)!)))
  return {
    toolsets: infos.map((info) => {
      const server = servers.get(info.name)
      const reason = unavailableReason(info, verdicts, server)
      return {
        ...(server === undefined ? {} : { mcpServer: server }),
        name: info.name,
        kind: info.kind,
        description: info.description,
        tools: info.tools,
        includes: info.includes,
        aliases: info.aliases,
        available: reason === null,
        reason
      }
    }),
    // The configuration of the gateway is the operator's business, not a limited key's.
    unknownReferences: scope.restricted ? [] : unknownConfigToolsets(gateway)
  }
}
