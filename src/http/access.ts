// What a caller may see and call: the tools of its key's toolsets, or everything when unrestricted.
import type { Gateway } from '../gateway.ts'
import type { Principal } from './auth.ts'

/** The set of tool names the principal may use, or undefined when it may use every tool. */
export function allowedTools (gateway: Gateway, principal: Principal | undefined): ReadonlySet<string> | undefined {
  if (principal?.toolsets === undefined) return undefined
  const snapshot = gateway.registry.snapshot()
  return new Set(gateway.catalog.select(snapshot, { enabled: [...principal.toolsets] }))
}

export function mayUse (allowed: ReadonlySet<string> | undefined, tool: string): boolean {
  return allowed === undefined || allowed.has(tool)
}
