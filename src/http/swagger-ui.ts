// Swagger UI under a prefix, loaded on its first request. @fastify/swagger-ui pulls in
// @fastify/static, its file-serving stack and the UI's assets at registration; few gateways ever
// show the page, so registering it up front cost every start that time and memory. Fastify takes
// no routes once ready, so the plugin lives in a small Fastify instance of its own, built on the
// first hit, and the prefix's requests are handed to it with inject (after this app's own hooks:
// auth, rate limit, Host check). The document itself (json, yaml) is served here directly, from
// app.openapiDocument() (./openapi.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'

// Answered by this app's own reply: Fastify sets them for the bytes it sends.
const HOP_HEADERS = new Set(['connection', 'content-length', 'date', 'keep-alive', 'transfer-encoding'])

/** The UI's own instance: @fastify/swagger-ui registered behind a stand-in that lends it this app's document. */
async function uiInstance (app: FastifyInstance, routePrefix: string): Promise<FastifyInstance> {
  const [{ default: Fastify }, { default: swaggerUi }, document] = await Promise.all([import('fastify'), import('@fastify/swagger-ui'), app.openapiDocument()])
  const ui = Fastify({ logger: false })
  // swagger-ui declares a dependency on @fastify/swagger and reads the document through swagger().
  await ui.register(fp(async (instance) => {
    instance.decorate('swagger', (options?: { yaml?: boolean }) => options?.yaml === true ? document.yaml : document.object)
  }, { name: '@fastify/swagger' }))
  await ui.register(swaggerUi, { routePrefix })
  await ui.ready()
  return ui
}

export default fp<{ routePrefix: string }>(async function swaggerUiOnDemand (app, { routePrefix }) {
  let ui: Promise<FastifyInstance> | undefined
  const forward = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    ui ??= uiInstance(app, routePrefix)
    // The UI's own request ends here, so a failed build is tried again by the next one.
    const instance = await ui.catch((err: unknown) => { ui = undefined; throw err })
    const answer = await instance.inject({ method: request.method as 'GET' | 'HEAD', url: request.url, headers: request.headers })
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !HOP_HEADERS.has(name)) reply.header(name, value)
    }
    return await reply.code(answer.statusCode).send(answer.rawPayload)
  }
  const hidden = { hide: true }
  app.get(`${routePrefix}/json`, { schema: hidden }, async () => (await app.openapiDocument()).object)
  app.get(`${routePrefix}/yaml`, { schema: hidden }, async (_request, reply) => await reply.type('application/x-yaml').send((await app.openapiDocument()).yaml))
  app.get(routePrefix, { schema: hidden }, forward)
  app.get(`${routePrefix}/*`, { schema: hidden }, forward)
}, { name: 'swagger-ui-on-demand' })
