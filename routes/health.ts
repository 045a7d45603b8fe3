// Liveness and readiness, open to orchestrators even when keys are configured, and metrics, for
// operators (an unlimited key, or open when METRICS_PUBLIC=true).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { metricsText, readiness } from '../src/http/probes.ts'

const Health = Type.Object({
  status: Type.String({ description: '"ok" while the process serves.' })
}, { description: 'Liveness answer.' })

const Readiness = Type.Object({
  ready: Type.Boolean({ description: 'True once start-up finished and the gateway is not shutting down.' }),
  draining: Type.Boolean({ description: 'True while shutting down: new tool calls are refused.' }),
  generation: Type.Integer({ description: 'Registry generation: moves on every tool change.' }),
  tools: Type.Integer({ description: 'Registered tools.' }),
  redis: Type.Optional(Type.Object({
    connected: Type.Boolean({ description: 'Whether the shared Redis answers now.' }),
    degraded: Type.Array(Type.String(), { description: 'What works differently while it does not (empty when connected).' })
  }, { description: 'Present when REDIS_URL is set. Readiness does not depend on it: without Redis each replica serves from its own memory.' }))
}, { description: 'Readiness answer.' })

const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/healthz', {
    config: { public: true, traced: false },
    schema: { summary: 'Liveness: 200 while the process serves', tags: ['health'], response: { 200: Health } }
  }, async () => ({ status: 'ok' }))

  app.get('/readyz', {
    config: { public: true, traced: false },
    schema: {
      summary: 'Readiness: 200 once discovery finished and not shutting down, else 503',
      tags: ['health'],
      response: { 200: Readiness, 503: Readiness }
    }
  }, async (_request, reply) => {
    const { status, body } = readiness(app)
    return reply.code(status).send(body)
  })

  app.get('/metrics', {
    // Its labels name every tool: with keys configured, only operators see it unless opened on purpose.
    config: { public: app.gateway.config.http.metricsPublic, operatorOnly: true, traced: false },
    schema: {
      summary: 'Prometheus metrics in the text exposition format',
      tags: ['health'],
      produces: ['text/plain'],
      response: { 200: Type.String({ description: 'Prometheus text format.' }) }
    }
  }, async (_request, reply) => {
    const { contentType, text } = await metricsText(app)
    return reply.type(contentType).send(text)
  })
}

export default healthRoutes
