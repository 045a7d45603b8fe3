// GET /definitions: the tool schemas an agent hands to its model, as the `tools` array of a Chat
// Completions request. Answers come from a per-selection cache with an ETag, so a poll that finds
// nothing new costs a look-up and a 304.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { commaList, selectionList } from '../src/http/query.ts'
import { ToolsetList } from '../src/http/schemas.ts'
import { checkedQuery, MAX_SEARCH_LIMIT, rankDefinitions } from '../src/search/tool-search.ts'

const Query = Type.Object({
  toolsets: ToolsetList('Comma-separated toolsets to include; absent = every toolset the caller may use; `all` and `*` allowed; present but naming none (`toolsets=`) is a 400.'),
  disabled: ToolsetList('Comma-separated toolsets to leave out (wins over toolsets); empty = none left out.'),
  query: Type.Optional(Type.String({ description: 'A task in words: answer only the tools most relevant to it, best first (ranked over names, descriptions and parameters). Empty is a 400.' })),
  limit: Type.Optional(Type.String({ description: `With query: how many tools at most, 1 to ${MAX_SEARCH_LIMIT} (default 10). Without query it is a 400.` })),
  format: Type.Optional(Type.Enum(['openai'], { default: 'openai', description: 'Output format; only `openai` (Chat Completions tools).' }))
}, { additionalProperties: false })

const definitionsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/definitions', {
    schema: {
      summary: 'Tool schemas ready to hand to a model',
      description: 'A JSON array usable as-is as the `tools` parameter of a Chat Completions request, sorted by name (with `query`: the most relevant first, at most `limit`); tools whose availability check fails are left out. Send If-None-Match with the last ETag to get 304 when nothing changed.',
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
    const { toolsets, disabled } = request.query
    const scope = request.scope
    const search = checkedQuery(request.query.query, request.query.limit)
    const key = `${toolsets ?? ''}\n${disabled ?? ''}\n${scope.cacheKey}`
    const all = await app.gateway.definitions.buildFor(key, () => scope.select(selectionList(toolsets, 'toolsets'), commaList(disabled)))
    // A search ranks the tools this answer would hold (scope, selection, availability already applied).
    const payload = search === undefined
      ? all
      : rankDefinitions(app.gateway.search, { key: scope.cacheKey, allowed: scope.allowed() }, all.tools, (tool) => tool.function.name, search.query, search.limit)
    reply.header('etag', payload.etag).header('cache-control', 'no-cache')
    if (request.headers['if-none-match'] === payload.etag) {
      app.metrics.definitionsServed(304)
      // No payload at all: a serialised `null` would announce `content-length: 4` on a 304, and
      // clients that trust it wait for four bytes that never come.
      return reply.code(304).send(undefined as unknown as null)
    }
    app.metrics.definitionsServed(200)
    return reply.type('application/json; charset=utf-8').send(payload.bytes)
  })
}

export default definitionsRoutes
