// GET /definitions: the tool schemas an agent hands to its model, as the `tools` array of a Chat
// Completions request. Answers come from a per-selection cache with an ETag, so a poll that finds
// nothing new costs a look-up and a 304.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { UnknownToolsetError } from '../src/errors.ts'
import type { Gateway } from '../src/gateway.ts'
import { allowedTools } from '../src/http/access.ts'
import type { Principal } from '../src/http/auth.ts'
import { commaList } from '../src/http/query.ts'
import { ToolsetList } from '../src/http/schemas.ts'

const Query = Type.Object({
  toolsets: ToolsetList('Comma-separated toolsets to include; absent = every toolset the caller may use; `all` and `*` allowed.'),
  disabled: ToolsetList('Comma-separated toolsets to leave out (wins over toolsets).'),
  format: Type.Optional(Type.Enum(['openai'], { default: 'openai', description: 'Output format; only `openai` (Chat Completions tools).' }))
}, { additionalProperties: false })

/** An unknown-toolset error that names only the key's own toolsets as valid. */
function unknownForKey (principal: Principal & { toolsets: readonly string[] }, names: string[]): Error {
  const valid = [...principal.toolsets, 'all']
  return new UnknownToolsetError(`unknown toolset(s): ${[...new Set(names)].join(', ')}; valid: ${valid.join(', ')}`, { unknown: names, valid })
}

/** The tools a request selects, within what its key may use. */
function selectTools (gateway: Gateway, principal: Principal | undefined, enabled?: string[], disabled?: string[]): string[] {
  const snapshot = gateway.registry.snapshot()
  if (principal?.toolsets === undefined) return gateway.catalog.select(snapshot, { enabled, disabled })
  const restricted = principal as Principal & { toolsets: readonly string[] }
  // Any name outside the key's own toolsets answers as unknown, existing or not, so a restricted
  // key cannot probe which other toolsets the gateway serves.
  const own = new Set([...restricted.toolsets, 'all', '*'])
  const foreign = [...enabled ?? [], ...disabled ?? []].filter((name) => !own.has(name))
  if (foreign.length > 0) throw unknownForKey(restricted, foreign)
  let names: string[]
  try {
    names = gateway.catalog.select(snapshot, { enabled, disabled })
  } catch (err) {
    // One of its own toolsets names nothing right now (e.g. an MCP server without tools yet).
    if (err instanceof UnknownToolsetError) throw unknownForKey(restricted, [...err.unknown])
    throw err
  }
  const allowed = allowedTools(gateway, principal)!
  return names.filter((name) => allowed.has(name))
}

export default async function definitionsRoutes (app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: { toolsets?: string, disabled?: string } }>('/definitions', {
    schema: {
      summary: 'Tool schemas ready to hand to a model',
      description: 'A JSON array usable as-is as the `tools` parameter of a Chat Completions request, sorted by name; tools whose availability check fails are left out. Send If-None-Match with the last ETag to get 304 when nothing changed.',
      tags: ['tools'],
      querystring: Query,
      headers: Type.Object({ 'if-none-match': Type.Optional(Type.String({ description: 'The ETag of a previous answer.' })) }),
      response: {
        200: Type.Array(Type.Ref('OpenAITool'), { description: 'OpenAI function tools.' }),
        304: Type.Null({ description: 'Not modified: the ETag still matches.' }),
        400: Type.Ref('ErrorBody')
      }
    }
  }, async (request, reply) => {
    const { gateway } = app
    const { toolsets, disabled } = request.query
    const principal = request.principal
    const key = `${toolsets ?? ''}\n${disabled ?? ''}\n${principal?.toolsets === undefined ? '' : principal.name}`
    const payload = await gateway.definitions.buildFor(key, () => selectTools(gateway, principal, commaList(toolsets), commaList(disabled)))
    reply.header('etag', payload.etag).header('cache-control', 'no-cache')
    if (request.headers['if-none-match'] === payload.etag) {
      app.metrics.definitionsServed(304)
      return reply.code(304).send()
    }
    app.metrics.definitionsServed(200)
    return reply.type('application/json; charset=utf-8').send(payload.bytes)
  })
}
