// GET /definitions: the tool schemas an agent hands to its model, in the format of its API (Chat
// Completions by default), as TypeScript declarations for code mode, or the few most relevant to a
// task. Answers come from a per-selection cache with an ETag, so a poll that finds nothing new costs
// a look-up and a 304.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { commaList, selectionList } from '../src/http/query.ts'
import { ToolsetList } from '../src/http/schemas.ts'
import { DefinitionsResponse } from '../src/definitions/formats/openapi.ts'
import { FORMATS, variantOf } from '../src/definitions/formats/formats.ts'
import { payloadTokens } from '../src/definitions/token-count.ts'
import { formattedToolName } from '../src/definitions/formats/shapes.ts'
import { typescriptPayload } from '../src/definitions/variants.ts'
import { checkedQuery, MAX_SEARCH_LIMIT, rankDefinitions } from '../src/search/tool-search.ts'
import { requireSearchTool } from '../src/search/search-tool.ts'

const Query = Type.Object({
  toolsets: ToolsetList('Comma-separated toolsets to include; absent = every toolset the caller may use; `all` and `*` allowed; present but naming none (`toolsets=`) is a 400.'),
  disabled: ToolsetList('Comma-separated toolsets to leave out (wins over toolsets); empty = none left out.'),
  query: Type.Optional(Type.String({ description: 'A task in words: answer only the tools most relevant to it, best first (ranked over names, descriptions and parameters). Empty is a 400.' })),
  limit: Type.Optional(Type.String({ description: `With query: how many tools at most, 1 to ${MAX_SEARCH_LIMIT} (default 10). Without query it is a 400.` })),
  format: Type.Optional(Type.String({ maxLength: 64, description: `Output format: ${FORMATS.join(', ')} (default chat, the OpenAI Chat Completions tools; openai is an alias of chat; typescript is text/plain, the others JSON). Anything else is a 400 listing these.` })),
  defer_loading: Type.Optional(Type.String({ maxLength: 16, description: 'true or false (default). With format=anthropic: every tool but search_tools has `defer_loading: true`, for Anthropic\'s tool search (needs search_tools in the answer: SEARCH_TOOL=true).' })),
  strict: Type.Optional(Type.String({ maxLength: 16, description: 'true or false (default). true: OpenAI strict-mode definitions (`strict: true`, every property required, optional ones nullable); formats chat and responses only. Tools that cannot be made strict are left out (GET /tools says why).' }))
}, { additionalProperties: false })

const definitionsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/definitions', {
    schema: {
      summary: 'Tool schemas ready to hand to a model',
      description: 'A JSON array usable as-is as the tools of a model request, sorted by name (with `query`: the most relevant first, at most `limit`): Chat Completions `tools` by default, or the Responses API, Anthropic Messages, Gemini functionDeclarations or MCP tools/list shape (`format`), optionally in OpenAI strict mode (`strict`); tools whose availability check fails, or that the format cannot express, are left out. `format=typescript` answers the same tools as the default, as TypeScript declarations (`declare const tools: { name(args: {...}): Promise<unknown> }`) for a model that writes code calling them, in `text/plain; charset=utf-8`. Each format has its own ETag: send If-None-Match with the last one to get 304 when nothing changed.',
      tags: ['tools'],
      querystring: Query,
      headers: Type.Object({ 'if-none-match': Type.Optional(Type.String({ description: 'The ETag of a previous answer.' })) }),
      response: {
        200: {
          description: 'The tools, sorted by name (with `query`: the most relevant first), in the requested format.',
          content: {
            'application/json': { schema: DefinitionsResponse },
            'text/plain': { schema: Type.String({ description: 'format=typescript: one TypeScript declaration of every tool, `declare const tools: { ... }`, descriptions as JSDoc.' }) }
          }
        },
        304: Type.Null({ description: 'Not modified: the ETag still matches.' }),
        400: Type.Ref('ErrorBody')
      }
    }
  }, async (request, reply) => {
    const { toolsets, disabled, format, strict, defer_loading: deferLoading } = request.query
    const scope = request.scope
    const search = checkedQuery(request.query.query, request.query.limit)
    const key = `${toolsets ?? ''}\n${disabled ?? ''}\n${scope.cacheKey}`
    const select = () => scope.select(selectionList(toolsets, 'toolsets'), commaList(disabled))
    // What a REST caller's calls may reach whatever it selected here (execute_code's scripts).
    const callable = () => scope.select()
    // The default (no format, or chat without strict) stays one cache look-up; other variants derive from it.
    const variant = format === undefined && strict === undefined && deferLoading === undefined ? undefined : variantOf(format, strict, deferLoading)
    let payload: { readonly bytes: Buffer, readonly etag: string }
    if (variant?.format === 'typescript') {
      // The tools of the default answer (and its ranking), declared: every tool is expressible.
      const chat = await app.gateway.definitions.buildFor(key, select, callable)
      payload = typescriptPayload(search === undefined
        ? chat
        : rankDefinitions(app.gateway.search, { key: scope.cacheKey, allowed: scope.allowed() }, chat.tools, (tool) => tool.function.name, search.query, search.limit))
    } else {
      const all = variant === undefined || variant.key === 'chat'
        ? await app.gateway.definitions.buildFor(key, select, callable)
        : await app.gateway.definitions.buildVariant(key, select, variant, callable)
      if (variant?.deferLoading === true) requireSearchTool(all.tools.map(formattedToolName))
      // A search ranks the tools this answer would hold (scope, selection, availability already applied).
      payload = search === undefined
        ? all
        : rankDefinitions(app.gateway.search, { key: scope.cacheKey, allowed: scope.allowed() }, all.tools, formattedToolName, search.query, search.limit)
    }
    reply.header('etag', payload.etag).header('cache-control', 'no-cache')
    // Counted once per cached payload (token-count.ts), so a repeated request pays a WeakMap look-up.
    reply.header('x-definitions-tokens', payloadTokens(payload))
    if (request.headers['if-none-match'] === payload.etag) {
      app.metrics.definitionsServed(304)
      // No payload at all: a serialised `null` would announce `content-length: 4` on a 304, and
      // clients that trust it wait for four bytes that never come.
      return reply.code(304).send(undefined as unknown as null)
    }
    app.metrics.definitionsServed(200)
    return reply.type(variant?.format === 'typescript' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8').send(payload.bytes)
  })
}

export default definitionsRoutes
