// A server span per HTTP request, continuing the caller's W3C `traceparent`: started when the
// request arrives (before auth, so refusals are traced too), ended with its status when the answer
// is sent. The dispatch spans of its calls hang from it (src/http/calls.ts, the MCP caller).
// Without a tracer no hook is installed at all: an untraced gateway pays nothing per request.
import fp from 'fastify-plugin'
import type { RequestSpan, Tracer } from '../tracing/tracer.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The tracer when tracing is on; undefined otherwise, and then nothing else of tracing runs. */
    tracer: Tracer | undefined
  }
  interface FastifyRequest {
    /** The request's span; set only when tracing is on. */
    traceSpan?: RequestSpan
  }
  interface FastifyContextConfig {
    /** false: no span for this route (probes and scrapes, which would drown the traces). */
    traced?: boolean
  }
}

export interface TracingOptions {
  tracer: Tracer | undefined
}

export default fp<TracingOptions>(async function tracing (app, { tracer }) {
  app.decorate('tracer', tracer)
  if (tracer === undefined) return
  app.decorateRequest('traceSpan', undefined)
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.traced === false) return
    const path = request.url.split('?', 1)[0]
    const span = tracer.startRequest(request.method, request.routeOptions.url ?? '', path, request.headers)
    request.traceSpan = span
    // A client gone before its answer (mid-call) fires neither onResponse nor onRequestAbort,
    // which covers only an unfinished body: the response's close, unfinished, tells.
    reply.raw.once('close', () => { if (!reply.raw.writableFinished) span.abort() })
  })
  app.addHook('onResponse', async (request, reply) => {
    request.traceSpan?.end(reply.statusCode)
  })
}, { name: 'tracing' })
