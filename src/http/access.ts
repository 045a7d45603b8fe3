// What a caller may see and call: the tools of its key's toolsets, or everything when unrestricted.
import { UnknownToolsetError } from '../errors.ts'
import type { Gateway } from '../gateway.ts'
import type { Principal } from './auth.ts'

// Snapshots never change, so what a key may use is worked out once per snapshot, not per request.
const resolved = new WeakMap<object, Map<string, ReadonlySet<string>>>()

/** The set of tool names the principal may use, or undefined when it may use every tool. */
export function allowedTools (gateway: Gateway, principal: Principal | undefined): ReadonlySet<string> | undefined {
  if (principal?.toolsets === undefined) return undefined
  const snapshot = gateway.registry.snapshot()
  let byKey = resolved.get(snapshot)
  if (byKey === undefined) {
    byKey = new Map()
    resolved.set(snapshot, byKey)
  }
  const known = byKey.get(principal.name)
  if (known !== undefined) return known
  const allowed = new Set<string>()
  // One toolset at a time: a key's toolset that names nothing right now (an MCP server without
  // tools yet, a typo in config) grants nothing, instead of failing every request of that key
  // with an error that lists every toolset the gateway has.
  for (const name of principal.toolsets) {
    try {
      for (const tool of gateway.catalog.select(snapshot, { enabled: [name] })) allowed.add(tool)
    } catch (err) {
      if (!(err instanceof UnknownToolsetError)) throw err
    }
  }
  byKey.set(principal.name, allowed)
  return allowed
}

export function mayUse (allowed: ReadonlySet<string> | undefined, tool: string): boolean {
  return allowed === undefined || allowed.has(tool)
}
