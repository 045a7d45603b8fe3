// The OpenAPI 3 document, built from the routes' own schemas by @fastify/swagger on its first
// request, and Swagger UI at /documentation (loaded on its first request too: ./swagger-ui.ts).
// Registered up front, the plugin and its YAML writer cost every start their loading and a pass
// over every schema, for a document few gateways are ever asked for. So this app only notes its
// routes as they register (what the plugin itself would note), and the first request replays
// them, handlers left out, into a small Fastify instance of their own where the plugin is
// registered exactly as it would have been here. The shared schemas are added here, before any
// route refers to them.
import type { FastifyInstance, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { Envelope } from '../dispatch/call/outcome.ts'
import { BatchAnswer } from '../dispatch/dialects/index.ts'
import { GATEWAY_IDENTITY } from '../shared/version.ts'
import { ErrorBody, OpenAITool } from './schemas.ts'
import swaggerUiOnDemand from './swagger-ui.ts'

export interface OpenApiDocument {
  /** What @fastify/swagger's swagger() answers, and with { yaml: true }. */
  object: Exclude<ReturnType<FastifyInstance['swagger']>, string>
  yaml: string
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The OpenAPI document of this app's routes, built on the first call. */
    openapiDocument: () => Promise<OpenApiDocument>
  }
}

async function buildDocument (app: FastifyInstance, routes: readonly RouteOptions[]): Promise<OpenApiDocument> {
  const [{ default: Fastify }, { default: swagger }] = await Promise.all([import('fastify'), import('@fastify/swagger')])
  const doc = Fastify({ logger: false })
  // Nothing here validates or serialises: the schemas are read, never compiled.
  doc.setValidatorCompiler(() => () => true)
  doc.setSerializerCompiler(() => (data) => JSON.stringify(data))
  for (const schema of Object.values(app.getSchemas())) doc.addSchema(schema as Record<string, unknown>)
  await doc.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Tool gateway',
        version: GATEWAY_IDENTITY.version,
        description: 'AI agents discover tools (GET /definitions) and run them (POST /dispatch) over REST.'
      },
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key from the gateway config.' } } },
      security: app.authenticator.enabled ? [{ apiKey: [] }] : []
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) }
  })
  // Each route as this app's onRoute hooks left it; its HEAD twin is added again by Fastify.
  for (const route of routes) doc.route({ ...route, handler: async () => undefined })
  await doc.ready()
  try {
    return { object: doc.swagger(), yaml: doc.swagger({ yaml: true }) }
  } finally {
    await doc.close()
  }
}

export default fp(async function openapi (app) {
  app.addSchema(ErrorBody)
  app.addSchema(Envelope)
  app.addSchema(BatchAnswer)
  app.addSchema(OpenAITool)
  // As @fastify/swagger collects them: HEAD routes are left out of the document.
  const routes: RouteOptions[] = []
  app.addHook('onRoute', (route) => {
    if (route.method !== 'HEAD') routes.push(route)
  })
  let document: Promise<OpenApiDocument> | undefined
  app.decorate('openapiDocument', async () => {
    document ??= buildDocument(app, routes)
    // A failed build is tried again by the next request.
    return await document.catch((err: unknown) => { document = undefined; throw err })
  })
  await app.register(swaggerUiOnDemand, { routePrefix: '/documentation' })
}, { name: 'openapi', dependencies: ['auth'] })
