// The OpenAPI 3 document, built from the routes' own schemas (@fastify/swagger), and Swagger UI at
// /documentation (loaded on its first request: ./swagger-ui.ts). The shared schemas are added here,
// before any route refers to them.
import swagger from '@fastify/swagger'
import fp from 'fastify-plugin'
import { Envelope } from '../dispatch/outcome.ts'
import { GATEWAY_IDENTITY } from '../version.ts'
import { ErrorBody, OpenAITool } from './schemas.ts'
import swaggerUiOnDemand from './swagger-ui.ts'

export default fp(async function openapi (app) {
  app.addSchema(ErrorBody)
  app.addSchema(Envelope)
  app.addSchema(OpenAITool)
  await app.register(swagger, {
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
  await app.register(swaggerUiOnDemand, { routePrefix: '/documentation' })
}, { name: 'openapi', dependencies: ['auth'] })
