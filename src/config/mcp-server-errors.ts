// An MCP server entry is one of two shapes (stdio or HTTP), and Ajv reports a bad field inside it
// against both: `{ url, protocol: "x" }` also got "must have required properties command" and
// "unknown field(s) url", which point the operator away from the one field that is wrong. When the
// entry says which shape it means (it has `command` or `url`, not both), only that shape's errors
// are kept, and the "must be either ..." summary goes when they say what is wrong.
import type { ErrorObject } from 'ajv'

const BRANCH = /\/anyOf\/(\d+)(\/|$)/

function tokensOf (pointer: string): string[] {
  return pointer.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
}

/** 0 = stdio (`command`), 1 = HTTP (`url`), in the order of the schema's union; undefined when the entry does not say. */
function intendedBranch (entry: unknown): number | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined
  const command = Object.hasOwn(entry, 'command')
  const url = Object.hasOwn(entry, 'url')
  return command === url ? undefined : command ? 0 : 1
}

export function focusMcpServerErrors (errors: ErrorObject[], value: unknown): ErrorObject[] {
  const servers = (value as { mcpServers?: Record<string, unknown> } | null)?.mcpServers
  if (typeof servers !== 'object' || servers === null) return errors
  const serverOf = (e: ErrorObject): string | undefined => {
    const tokens = tokensOf(e.instancePath)
    return tokens[0] === 'mcpServers' && tokens.length > 1 ? tokens[1] : undefined
  }
  const branchErrors = new Set<string>()
  const kept = errors.filter((e) => {
    const server = serverOf(e)
    const branch = BRANCH.exec(e.schemaPath)
    if (server === undefined || branch === null) return true
    const intended = intendedBranch(servers[server])
    if (intended === undefined) return true
    if (Number(branch[1]) !== intended) return false
    branchErrors.add(server)
    return true
  })
  return kept.filter((e) => !(e.keyword === 'anyOf' && branchErrors.has(serverOf(e) ?? '')))
}
