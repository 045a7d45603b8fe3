// Builds the Fastify app from a validated config: the gateway core, error handling, auth, metrics,
// the OpenAPI document and the routes. Tests build it and use inject; only src/server.ts listens.
import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { Logger } from 'pino'
import type { GatewayConfig } from './config/schema.ts'
import { createGateway, type Gateway } from './gateway.ts'
import { authHook, createAuthenticator } from './http/auth.ts'
import { installErrorHandling } from './http/error-handler.ts'
import { installJsonParser } from './http/json-body.ts'
import { Lifecycle } from './http/lifecycle.ts'
import { createMetrics, type GatewayMetrics } from './http/metrics.ts'
import { installRateLimit } from './http/rate-limit.ts'
import { Envelope, ErrorBody, OpenAITool } from './http/schemas.ts'
import { createLogger } from './logger.ts'
import definitionsRoutes from '../routes/definitions.ts'
import dispatchRoutes from '../routes/dispatch.ts'
import healthRoutes from '../routes/health.ts'
import toolsRoutes from '../routes/tools.ts'
import toolsetsRoutes from '../routes/toolsets.ts'

declare module 'fastify' {
  interface FastifyInstance {
    gateway: Gateway
    lifecycle: Lifecycle
    metrics: GatewayMetrics
  }
}

export interface BuildAppOptions {
  logger?: Logger
  /** A gateway built beforehand (tests register fixtures into it); default: one from config. */
  gateway?: Gateway
  /** Where API keys named by `env` are read; default process.env. */
  env?: NodeJS.ProcessEnv
}

/**
 * The request id goes on every answer, and routes that run tools refuse new calls while the
 * gateway drains. Each route's handler is wrapped once, when the route is added, rather than by an
 * onRequest hook: Fastify's hook runner costs three closures and a run on every request, which
 * bench/ measured at about 3 % of dispatch throughput. Answers that never reach a handler (404,
 * bad bodies, auth, rate limits) get the id from the error handlers (sendError).
 */
function requestIdAndDraining (app: FastifyInstance): void {
  const lifecycle = app.lifecycle
  app.addHook('onRoute', (route) => {
    const handler = route.handler
    const refusedWhileDraining = route.config?.refusedWhileDraining === true
    route.handler = function handlerWithRequestId (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      reply.header('x-request-id', request.id)
      if (refusedWhileDraining && lifecycle.draining) throw lifecycle.refusal(reply)
      return handler.call(this, request, reply)
    }
  })
}

export async function buildApp (config: GatewayConfig, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const logger = options.logger ?? createLogger(config)
  const app = Fastify({
    // pino's Logger and Fastify's base logger type differ only in generics.
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: config.http.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // The routes read comma lists and digit strings themselves: no silent type coercion of input.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } }
  })
  const gateway = options.gateway ?? createGateway(config, logger)
  app.decorate('gateway', gateway)
  app.decorate('lifecycle', new Lifecycle())
  app.decorate('metrics', createMetrics())
  installErrorHandling(app, config.http.bodyLimitBytes)
  // JSON only: a text/plain body would otherwise reach tools as a string and fail as "invalid arguments".
  app.removeAllContentTypeParsers()
  installJsonParser(app)
  requestIdAndDraining(app)

  const authenticator = createAuthenticator(config, options.env)
  if (authenticator.enabled) app.addHook('onRequest', authHook(authenticator))
  await installRateLimit(app, config.http.rateLimit)

  app.addSchema(ErrorBody)
  app.addSchema(Envelope)
  app.addSchema(OpenAITool)
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Tool gateway',
        version: '0.1.0',
        description: 'AI agents discover tools (GET /definitions) and run them (POST /dispatch) over REST.'
      },
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key from the gateway config.' } } },
      security: authenticator.enabled ? [{ apiKey: [] }] : []
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) }
  })
  await app.register(swaggerUi, { routePrefix: '/documentation' })

  await app.register(healthRoutes)
  await app.register(definitionsRoutes)
  await app.register(dispatchRoutes)
  await app.register(toolsRoutes)
  await app.register(toolsetsRoutes)

  app.addHook('onClose', async () => { await gateway.stop() })
  await gateway.start()
  app.lifecycle.markReady()
  return app
}
