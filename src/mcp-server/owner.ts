// Whose calls an MCP caller's are: its key's name (or signed-in user), `anonymous` on an open
// gateway, as a REST caller's (src/http). Held calls and tasks belong to it alone.
import type { Caller } from '../access/caller.ts'

export function ownerOf (caller: Caller): string {
  return caller.principal ?? 'anonymous'
}
