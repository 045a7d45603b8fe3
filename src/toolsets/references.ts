// Toolsets the configuration names that do not exist: a key's toolsets or a custom toolset's
// includes with a typo grant or include nothing, silently. Found after start-up (when built-ins,
// MCP servers and plugins have registered) to warn with the closest valid names, and for /toolsets.
import { closestNames } from '../shared/closest-names.ts'
import type { GatewayConfig } from '../config/schema.ts'
import type { RegistrySnapshot } from '../registry/types.ts'
import type { ToolsetCatalog } from './catalog.ts'

export interface UnknownToolsetReference {
  /** Where the configuration names it, e.g. `toolsets.research.includes`. */
  where: string
  /** The name as written. */
  toolset: string
  /** The valid names closest to it, best first; empty when none is close. */
  closest: string[]
}

/** The names an entry holds: it may itself be a comma list, as query strings are. */
function namesIn (entry: string): string[] {
  const names = entry.split(',').map((name) => name.trim()).filter((name) => name !== '')
  // An entry of blanks names nothing: reported as written, since it grants nothing either.
  return names.length === 0 ? [entry] : names
}

/**
 * Every toolset name in `config` (keys' toolsets, custom toolsets' includes) that names nothing in
 * `snapshot`. `expected` are names known to come although absent now (configured MCP servers'
 * toolsets and aliases): a server that is down is not a typo.
 */
export function unknownToolsetReferences (config: GatewayConfig, catalog: ToolsetCatalog, snapshot: RegistrySnapshot, expected: Iterable<string> = []): UnknownToolsetReference[] {
  const valid = [...new Set([...catalog.names(snapshot), ...expected])]
  const known = new Set(valid)
  const found: UnknownToolsetReference[] = []
  const check = (where: string, entries: readonly string[] | undefined): void => {
    for (const toolset of (entries ?? []).flatMap(namesIn)) {
      if (!known.has(toolset)) found.push({ where, toolset, closest: closestNames(toolset, valid) })
    }
  }
  config.auth.keys.forEach((key, i) => check(`auth.keys.${i}.toolsets (key ${JSON.stringify(key.name)})`, key.toolsets))
  for (const [name, toolset] of Object.entries(config.toolsets)) check(`toolsets.${name}.includes`, toolset.includes)
  const oauth = config.auth.oauth
  for (const [scope, toolsets] of Object.entries(oauth?.scopes ?? {})) check(`auth.oauth.scopes.${scope}`, toolsets)
  for (const [claim, values] of Object.entries(oauth?.claims ?? {})) {
    for (const [value, toolsets] of Object.entries(values)) check(`auth.oauth.claims.${claim}.${value}`, toolsets)
  }
  return found
}
