// The admin port (ADMIN_PORT): /healthz, /readyz and /metrics on a listener of their own, outside
// every limit of the traffic port (its connection cap, calls in flight, rate limit, back-pressure,
// keys), so that the kubelet's probes and Prometheus's scrapes answer while traffic saturates the
// main port. It asks no key, /metrics included: it is meant to be reachable only inside the pod's
// network (the manifests expose it to no Service). The server opens it once the main port listens
// (--stdio opens neither); it closes with the app, after the main port has drained: probes keep
// answering (readiness 503) meanwhile.
import Fastify, { LogController, type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { metricsText, readiness } from './probes.ts'

/** Few and short: probes and scrapes, nothing that could hold sockets. */
const ADMIN_MAX_CONNECTIONS = 64
const ADMIN_REQUEST_TIMEOUT_MS = 10_000

declare module 'fastify' {
  interface FastifyInstance {
    /** Opens the admin port when one is configured: the port (the one picked for ADMIN_PORT=0), else undefined. */
    listenAdmin: () => Promise<number | undefined>
  }
}

function adminApp (app: FastifyInstance): FastifyInstance {
  const admin = Fastify({
    loggerInstance: app.log.child({ listener: 'admin' }),
    // Probes every few seconds would fill the log with nothing.
    logController: new LogController({ disableRequestLogging: true }),
    requestTimeout: ADMIN_REQUEST_TIMEOUT_MS,
    http: { headersTimeout: ADMIN_REQUEST_TIMEOUT_MS }
  })
  admin.server.maxConnections = ADMIN_MAX_CONNECTIONS
  admin.get('/healthz', async () => ({ status: 'ok' }))
  admin.get('/readyz', async (_request, reply) => {
    const { status, body } = readiness(app)
    return await reply.code(status).send(body)
  })
  admin.get('/metrics', async (_request, reply) => {
    const { contentType, text } = await metricsText(app)
    return await reply.type(contentType).send(text)
  })
  return admin
}

export default fp<{ host: string, port: number | undefined }>(async function adminListener (app, { host, port }) {
  let admin: FastifyInstance | undefined
  app.decorate('listenAdmin', async () => {
    if (port === undefined) return undefined
    admin ??= adminApp(app)
    if (!admin.server.listening) await admin.listen({ host, port, listenTextResolver: (address) => `Admin listener at ${address}` })
    const address = admin.server.address()
    return typeof address === 'object' && address !== null ? address.port : undefined
  })
  app.addHook('onClose', async () => { await admin?.close() })
}, { name: 'admin-listener', dependencies: ['metrics', 'lifecycle'] })
