// The toolsets a gateway offers right now: builtins, custom toolsets from config and the tags of
// registered tools, resolved against one registry snapshot so a concurrent MCP refresh cannot
// change the answer half-way through a request.
import { closestNames } from '../shared/closest-names.ts'
import { InvalidConfigError, UnknownToolsetError } from '../shared/errors.ts'
import type { RegistrySnapshot, ToolEntry } from '../registry/types.ts'
import { BUILTIN_TOOLSETS, getBuiltinToolset, type ToolsetDefinition } from './builtin.ts'
import { resolveToolset } from './resolve.ts'
import { isRecord } from '../shared/objects.ts'

export interface CustomToolsetConfig {
  description?: string
  tools?: string[]
  includes?: string[]
}

export interface ToolsetCatalogOptions {
  custom?: Record<string, CustomToolsetConfig>
}

export interface ToolsetSelection {
  enabled?: readonly string[]
  disabled?: readonly string[]
}

export type ToolsetKind = 'builtin' | 'custom' | 'registry'

export interface ToolsetInfo {
  name: string
  kind: ToolsetKind
  description: string
  /** Registered tools the toolset resolves to, sorted. */
  tools: string[]
  includes: string[]
  /** Aliases that name this toolset (an MCP server `foo` for `mcp-foo`). */
  aliases: string[]
  /** Includes that name no toolset at the moment (a custom toolset naming an absent MCP server). */
  missingIncludes: string[]
}

const EVERYTHING = new Set(['all', '*'])
// Commas separate names in query strings and env vars, so a name holding one could never be asked for.
const CUSTOM_NAME = /^[^\s,]+$/

interface SnapshotIndex {
  /** toolset tag → the registered tools carrying it, sorted. */
  tagged: Map<string, ToolEntry[]>
  all: readonly string[]
}

// Snapshots are immutable, so the index of one can be kept as long as the snapshot lives.
const indexes = new WeakMap<RegistrySnapshot, SnapshotIndex>()

function indexOf (snapshot: RegistrySnapshot): SnapshotIndex {
  let index = indexes.get(snapshot)
  if (index === undefined) {
    const tagged = new Map<string, ToolEntry[]>()
    const all = [...snapshot.tools.keys()].sort()
    for (const name of all) {
      const entry = snapshot.tools.get(name)!
      const list = tagged.get(entry.toolset)
      if (list) list.push(entry)
      else tagged.set(entry.toolset, [entry])
    }
    index = { tagged, all: Object.freeze(all) }
    indexes.set(snapshot, index)
  }
  return index
}

function stringList (value: unknown, where: string): string[] {
  if (value === undefined) return []
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item.trim() !== '')) {
    throw new InvalidConfigError(`${where} must be an array of non-empty strings`)
  }
  return [...new Set(value as string[])]
}

/** Checks and reads the custom toolsets of a configuration; throws InvalidConfigError naming the first bad one. */
export function parseCustom (custom: unknown): Map<string, ToolsetDefinition> {
  const parsed = new Map<string, ToolsetDefinition>()
  if (custom === undefined) return parsed
  if (!isRecord(custom)) throw new InvalidConfigError('custom toolsets must be an object mapping names to { description, tools, includes }')
  for (const [name, raw] of Object.entries(custom)) {
    const label = `custom toolset ${JSON.stringify(name)}`
    if (!CUSTOM_NAME.test(name)) throw new InvalidConfigError(`${label}: a toolset name must be non-empty, without spaces or commas`)
    if (EVERYTHING.has(name)) throw new InvalidConfigError(`${label}: "all" and "*" are reserved (they mean every tool)`)
    if (getBuiltinToolset(name)) {
      throw new InvalidConfigError(`${label}: "${name}" is a builtin toolset and cannot be redefined; choose another name (builtins: ${Object.keys(BUILTIN_TOOLSETS).sort().join(', ')})`)
    }
    if (!isRecord(raw)) throw new InvalidConfigError(`${label} must be an object { description, tools, includes }`)
    if (raw.description !== undefined && typeof raw.description !== 'string') throw new InvalidConfigError(`${label}: description must be a string`)
    const description = (raw.description as string | undefined)?.trim() || `Custom toolset "${name}" defined by the gateway operator.`
    const tools = stringList(raw.tools, `${label}: tools`)
    const includes = stringList(raw.includes, `${label}: includes`)
    parsed.set(name, Object.freeze({ description, tools: Object.freeze(tools), includes: Object.freeze(includes) }))
  }
  return parsed
}

function describeTag (tag: string, entries: ToolEntry[]): string {
  const origins = new Set(entries.map((e) => e.origin.kind === 'mcp' ? `MCP server "${e.origin.server}"` : e.origin.kind === 'plugin' ? `plugin "${e.origin.plugin}"` : 'builtin'))
  const [only] = origins
  if (origins.size === 1 && only !== 'builtin') return `Tools provided by ${only}.`
  return `Tools registered under the "${tag}" toolset.`
}

/** Splits on commas too (so a raw `a,,b` works), trims, drops empty names and repeats. */
function normalise (names: readonly string[] | undefined): string[] {
  const out = new Set<string>()
  for (const item of names ?? []) {
    if (typeof item !== 'string') throw new TypeError(`toolset names must be strings, got ${typeof item}`)
    for (const part of item.split(',')) {
      const name = part.trim()
      if (name !== '') out.add(name)
    }
  }
  return [...out]
}

/** ` (did you mean "file"?)` for a name a typo away from valid ones, else nothing. */
function didYouMean (name: string, valid: readonly string[]): string {
  const closest = closestNames(name, valid)
  return closest.length === 0 ? '' : ` (did you mean ${closest.map((n) => JSON.stringify(n)).join(' or ')}?)`
}

export class ToolsetCatalog {
  #custom: Map<string, ToolsetDefinition>

  constructor (options: ToolsetCatalogOptions = {}) {
    this.#custom = parseCustom(options.custom)
  }

  /** Replaces the custom toolsets (a configuration reload); a bad definition throws and changes nothing. */
  setCustom (custom: unknown): void {
    this.#custom = parseCustom(custom)
  }

  /** Every name a caller may use, sorted: toolsets, registry tags, aliases, `all` and `*`. */
  names (snapshot: RegistrySnapshot): string[] {
    const names = new Set([...Object.keys(BUILTIN_TOOLSETS), ...this.#custom.keys(), ...indexOf(snapshot).tagged.keys(), ...snapshot.aliases.keys(), ...EVERYTHING])
    return [...names].sort()
  }

  /**
   * The effective definition of `name`: a builtin or custom toolset joined by the registered tools
   * tagged with its name, a bare registry tag, the target of an alias, or every tool for `all`/`*`.
   * Static names win over registry tags, which win over aliases.
   */
  definition (name: string, snapshot: RegistrySnapshot): ToolsetDefinition | undefined {
    if (EVERYTHING.has(name)) {
      return Object.freeze({ description: 'Every registered tool.', tools: indexOf(snapshot).all, includes: Object.freeze([]) })
    }
    const direct = this.#direct(name, snapshot)
    if (direct !== undefined) return direct
    const target = snapshot.aliases.get(name)
    return target === undefined ? undefined : this.#direct(target, snapshot)
  }

  /** Registered tools of the named toolsets, sorted and unique; throws `UnknownToolsetError`. */
  resolve (names: readonly string[], snapshot: RegistrySnapshot): string[] {
    const wanted = normalise(names)
    this.#assertKnown(wanted, snapshot)
    return this.#expand(wanted, snapshot)
  }

  /**
   * The registered tools a request may use. An absent enabled list means every tool; a list that
   * names nothing (empty, blanks) selects nothing, as an empty selection must never widen. Disabled
   * toolsets are resolved and subtracted afterwards, so disabling `terminal` removes it from
   * `debugging` too.
   */
  select (snapshot: RegistrySnapshot, selection: ToolsetSelection = {}): string[] {
    const enabled = selection.enabled === undefined ? undefined : normalise(selection.enabled)
    const disabled = normalise(selection.disabled)
    this.#assertKnown([...enabled ?? [], ...disabled], snapshot)
    const chosen = enabled === undefined ? indexOf(snapshot).all : this.#expand(enabled, snapshot)
    if (disabled.length === 0) return [...chosen]
    const removed = new Set(this.#expand(disabled, snapshot))
    return chosen.filter((tool) => !removed.has(tool))
  }

  /** Every toolset (not aliases, not `all`), for operators; never throws on a broken include. */
  describe (snapshot: RegistrySnapshot): ToolsetInfo[] {
    const tagged = indexOf(snapshot).tagged
    const names = new Set([...Object.keys(BUILTIN_TOOLSETS), ...this.#custom.keys(), ...tagged.keys()])
    const aliasesOf = new Map<string, string[]>()
    for (const [alias, target] of snapshot.aliases) {
      const list = aliasesOf.get(target)
      if (list) list.push(alias)
      else aliasesOf.set(target, [alias])
    }
    return [...names].sort().map((name) => {
      const definition = this.definition(name, snapshot)!
      const kind: ToolsetKind = getBuiltinToolset(name) ? 'builtin' : this.#custom.has(name) ? 'custom' : 'registry'
      return {
        name,
        kind,
        description: definition.description,
        tools: this.#expand([name], snapshot),
        includes: [...definition.includes],
        aliases: (aliasesOf.get(name) ?? []).sort(),
        missingIncludes: [...new Set(this.#missingIncludes([name], snapshot).map((m) => m.include))].sort()
      }
    })
  }

  #direct (name: string, snapshot: RegistrySnapshot): ToolsetDefinition | undefined {
    const fixed = getBuiltinToolset(name) ?? this.#custom.get(name)
    const entries = indexOf(snapshot).tagged.get(name)
    if (fixed === undefined && entries === undefined) return undefined
    const joined = (entries ?? []).map((e) => e.name)
    if (fixed === undefined) {
      return Object.freeze({ description: describeTag(name, entries!), tools: Object.freeze(joined), includes: Object.freeze([]) })
    }
    // Sorted like every other tool list the catalog hands out, whatever order the source wrote.
    const tools = [...new Set([...fixed.tools, ...joined])].sort()
    return Object.freeze({ description: fixed.description, tools: Object.freeze(tools), includes: fixed.includes })
  }

  /** Union of the named toolsets with one visited set, keeping only tools registered now. */
  #expand (names: readonly string[], snapshot: RegistrySnapshot): string[] {
    const lookup = (name: string): ToolsetDefinition | undefined => this.definition(name, snapshot)
    const visited = new Set<string>()
    const tools = new Set<string>()
    for (const name of names) {
      for (const tool of resolveToolset(name, lookup, visited)) {
        if (snapshot.tools.has(tool)) tools.add(tool)
      }
    }
    return [...tools].sort()
  }

  /** Includes reachable from `names` that name nothing in this snapshot, with who includes them. */
  #missingIncludes (names: readonly string[], snapshot: RegistrySnapshot): Array<{ include: string, by: string }> {
    const missing: Array<{ include: string, by: string }> = []
    const seen = new Set<string>()
    const pending = [...names]
    while (pending.length > 0) {
      const name = pending.pop()!
      if (seen.has(name)) continue
      seen.add(name)
      for (const include of this.definition(name, snapshot)?.includes ?? []) {
        if (this.definition(include, snapshot) === undefined) missing.push({ include, by: name })
        else pending.push(include)
      }
    }
    return missing
  }

  #assertKnown (names: readonly string[], snapshot: RegistrySnapshot): void {
    const unknown = names.filter((name) => this.definition(name, snapshot) === undefined)
    const missing = this.#missingIncludes(names.filter((name) => !unknown.includes(name)), snapshot)
    if (unknown.length === 0 && missing.length === 0) return
    const valid = this.names(snapshot)
    const parts: string[] = []
    if (unknown.length > 0) parts.push(`Unknown toolset${unknown.length > 1 ? 's' : ''}: ${unknown.map((n) => JSON.stringify(n) + didYouMean(n, valid)).join(', ')}.`)
    for (const { include, by } of missing) parts.push(`Toolset "${by}" includes unknown toolset ${JSON.stringify(include)}.`)
    parts.push(`Valid toolsets: ${valid.join(', ')}.`)
    throw new UnknownToolsetError(parts.join(' '), { unknown: [...new Set([...unknown, ...missing.map((m) => m.include)])], valid })
  }
}
