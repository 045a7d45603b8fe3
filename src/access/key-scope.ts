// What one caller may see and call: the tools of its API key's toolsets, or every tool when the key
// is not limited to toolsets (or the gateway is open). The one place every route asks: definitions,
// dispatch, /tools and /toolsets. Outside its toolsets a tool does not exist for a caller, so a
// limited key cannot learn which other tools or toolsets the gateway serves.
import { UnknownToolsetError } from '../shared/errors.ts'
import type { ToolRegistry } from '../registry/registry.ts'
import type { ToolsetCatalog } from '../toolsets/catalog.ts'
import type { RegistrySnapshot } from '../registry/types.ts'

/** The caller as authentication found it; `toolsets` undefined = every toolset. */
export interface ScopedPrincipal {
  readonly name: string
  readonly toolsets?: readonly string[]
}

/** What a scope is worked out from: the tools and the toolsets (the gateway holds both). */
export interface ScopeSources {
  readonly registry: ToolRegistry
  readonly catalog: ToolsetCatalog
}

const EVERYTHING = ['all', '*']

// Snapshots never change, so what a key may use is worked out once per snapshot and key, not per request.
const resolved = new WeakMap<RegistrySnapshot, Map<string, ReadonlySet<string>>>()

function toolsOfKey (gateway: ScopeSources, snapshot: RegistrySnapshot, name: string, toolsets: readonly string[]): ReadonlySet<string> {
  let byKey = resolved.get(snapshot)
  if (byKey === undefined) {
    byKey = new Map()
    resolved.set(snapshot, byKey)
  }
  // A name with its toolsets: a user's token may grant other toolsets than the last one did.
  const id = `${name}\n${toolsets.join(',')}`
  const known = byKey.get(id)
  if (known !== undefined) return known
  const allowed = new Set<string>()
  // One toolset at a time: a key's toolset that names nothing right now (an MCP server without
  // tools yet, a typo in config) grants nothing, instead of failing every request of that key
  // with an error that lists every toolset the gateway has.
  for (const toolset of toolsets) {
    try {
      for (const tool of gateway.catalog.select(snapshot, { enabled: [toolset] })) allowed.add(tool)
    } catch (err) {
      if (!(err instanceof UnknownToolsetError)) throw err
    }
  }
  byKey.set(id, allowed)
  return allowed
}

export class KeyScope {
  readonly #gateway: ScopeSources
  /** Set only for a key or token limited to toolsets. */
  readonly #limited: { readonly name: string, readonly toolsets: readonly string[], readonly cacheKey: string } | undefined

  constructor (gateway: ScopeSources, principal: ScopedPrincipal | undefined) {
    this.#gateway = gateway
    this.#limited = principal?.toolsets === undefined
      ? undefined
      : { name: principal.name, toolsets: principal.toolsets, cacheKey: `${principal.name}\n${principal.toolsets.join(',')}` }
  }

  /** Whether the key is limited to some toolsets. */
  get restricted (): boolean {
    return this.#limited !== undefined
  }

  /** The toolsets the key was given (empty when it is not limited). */
  get toolsets (): readonly string[] {
    return this.#limited?.toolsets ?? []
  }

  /** Tells apart the answers of callers that see different tools (empty for every unlimited caller). */
  get cacheKey (): string {
    return this.#limited?.cacheKey ?? ''
  }

  /** The tools the key may use in the current snapshot; undefined = every tool. */
  allowed (): ReadonlySet<string> | undefined {
    if (this.#limited === undefined) return undefined
    return toolsOfKey(this.#gateway, this.#gateway.registry.snapshot(), this.#limited.name, this.#limited.toolsets)
  }

  mayUse (tool: string): boolean {
    return this.#limited === undefined || this.allowed()!.has(tool)
  }

  /**
   * The tools a selection of toolsets names, within what the key may use; an unknown toolset is an
   * error. For a limited key, any name outside its own toolsets is unknown, existing or not, and the
   * error lists only the key's own toolsets as valid.
   */
  select (enabled?: readonly string[], disabled?: readonly string[]): string[] {
    const { catalog, registry } = this.#gateway
    const snapshot = registry.snapshot()
    const selection = { enabled, disabled }
    const limited = this.#limited
    if (limited === undefined) return catalog.select(snapshot, selection)
    const own = new Set([...limited.toolsets, ...EVERYTHING])
    const foreign = [...enabled ?? [], ...disabled ?? []].filter((name) => !own.has(name))
    if (foreign.length > 0) throw this.#unknown(foreign)
    let names: string[]
    try {
      names = catalog.select(snapshot, selection)
    } catch (err) {
      // One of its own toolsets names nothing right now (e.g. an MCP server without tools yet).
      if (err instanceof UnknownToolsetError) throw this.#unknown(err.unknown)
      throw err
    }
    const allowed = toolsOfKey(this.#gateway, snapshot, limited.name, limited.toolsets)
    return names.filter((name) => allowed.has(name))
  }

  #unknown (names: readonly string[]): InstanceType<typeof UnknownToolsetError> {
    const unknown = [...new Set(names)]
    const valid = [...this.toolsets, 'all']
    return new UnknownToolsetError(`unknown toolset(s): ${unknown.join(', ')}; valid: ${valid.join(', ')}`, { unknown, valid })
  }
}
