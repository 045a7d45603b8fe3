// Builds the Fastify app from a validated config: the gateway core, then the edge's plugins in the
// order each needs the one before (errors, bodies, lifecycle, shared state, auth, rate limit, scope,
// metrics, the call lifecycle, idempotency, OpenAPI), then every route file under routes/. Tests
// build it and use inject; only src/server.ts listens.
import { join, resolve } from 'node:path'
import autoload from '@fastify/autoload'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { loadConfig } from '../config/load.ts'
import type { GatewayConfig } from '../config/schema.ts'
import { createGateway, type Gateway } from '../core/gateway.ts'
import { RedisPinStore } from '../trust/pin-store.ts'
import access from '../http/access.ts'
import adminListener from '../http/admin-listener.ts'
import approvals from '../http/approvals.ts'
import audit from '../http/audit.ts'
import auth from '../http/auth.ts'
import calls from '../http/calls.ts'
import detachedCalls from '../http/detached-calls.ts'
import errorHandling from '../http/error-handler.ts'
import jsonBody from '../http/json-body.ts'
import { lazySerializerFactory } from '../http/lazy-serializers.ts'
import hostCheck from '../http/host-check.ts'
import idempotency from '../http/idempotency.ts'
import lifecycle from '../http/lifecycle.ts'
import metrics from '../http/metrics.ts'
import openapi from '../http/openapi.ts'
import rateLimit from '../http/rate-limit.ts'
import inFlight from '../http/in-flight.ts'
import pressure from '../http/pressure.ts'
import { serverOptions } from '../http/server-options.ts'
import sharedState from '../http/shared-state.ts'
import slowBodies from '../http/slow-bodies.ts'
import tracing from '../http/tracing.ts'
import { createLogger } from './logger.ts'
import { Reloader, type ReloadReport } from '../reload/reloader.ts'
import { watchConfigFile } from '../reload/watch.ts'
import { unknownConfigToolsets } from '../reports/toolsets.ts'
import { startTracing } from '../tracing/start.ts'
import type { Tracer } from '../tracing/tracer.ts'

declare module 'fastify' {
  interface FastifyInstance {
    gateway: Gateway
    /** Reloads the configuration and the tools (SIGHUP, the config file watch); never rejects. */
    reload: () => Promise<ReloadReport>
  }
}

/** routes/ beside src/, for the TypeScript sources and the compiled build (dist/routes) alike. */
const ROUTES_DIR = join(import.meta.dirname, '..', '..', 'routes')

export interface BuildAppOptions {
  logger?: Logger
  /** A gateway built beforehand (tests register fixtures into it), with its tracer; default: one from config. */
  gateway?: Gateway
  /** Where API keys named by `env` are read; default process.env. */
  env?: NodeJS.ProcessEnv
  /** A tracer of the caller's (tests keep spans in memory); default: config.tracing's, none without an endpoint. */
  tracer?: Tracer
  reload?: {
    /** Reads the configuration again; default loadConfig() on `env`. */
    load?: () => Promise<GatewayConfig>
    /** The config file to watch when reload.watchConfig is on; default GATEWAY_CONFIG of `env`. */
    file?: string
    /** Checks a start would make beyond the loader's (the server's protected mode). */
    validate?: (config: GatewayConfig) => void
  }
}

/** `app.reload`, and the watch of the config file when it is asked for. */
function setUpReload (app: FastifyInstance, config: GatewayConfig, options: BuildAppOptions, logger: Logger): void {
  const env = options.env ?? process.env
  const reloader = new Reloader({
    gateway: app.gateway,
    authenticator: app.authenticator,
    load: options.reload?.load ?? (() => loadConfig({ env })),
    validate: options.reload?.validate,
    env,
    logger
  })
  // A reload (SIGHUP, the file watch) changes who may call what: an admin action of the audit trail,
  // recorded once per pass. Callers that share a pass share its promise, as the reloader answers.
  let pass: Promise<ReloadReport> | undefined
  let recorded: Promise<ReloadReport> | undefined
  app.decorate('reload', () => {
    const next = reloader.reload()
    if (next !== pass || recorded === undefined) {
      pass = next
      recorded = next.then((report) => {
        app.audit.record({ type: 'admin', action: 'reload', status: report.ok ? 'ok' : 'failed', detail: report.ok ? { generation: report.generation.after } : { error: report.error } })
        return report
      })
    }
    return recorded
  })
  const file = options.reload?.file ?? (env.GATEWAY_CONFIG ? resolve(env.GATEWAY_CONFIG) : undefined)
  if (!config.reload.watchConfig) return
  if (file === undefined) {
    logger.warn('reload.watchConfig is on but no config file is used (GATEWAY_CONFIG): nothing to watch')
    return
  }
  const stop = watchConfigFile({ file, debounceMs: config.reload.debounceMs, onChange: () => { app.reload().catch(() => {}) }, logger })
  app.addHook('onClose', async () => { stop() })
}

/** The edge's plugins, in the order each needs the one before. */
async function registerEdge (app: FastifyInstance, config: GatewayConfig, options: BuildAppOptions, tracer: Tracer | undefined): Promise<void> {
  // First, so that a request's span covers what every later hook does (a refused key included).
  await app.register(tracing, { tracer })
  await app.register(errorHandling, { bodyLimit: config.http.bodyLimitBytes })
  await app.register(jsonBody)
  await app.register(lifecycle)
  await app.register(slowBodies, { bodyIdleTimeoutMs: config.http.bodyIdleTimeoutMs })
  await app.register(hostCheck, { config })
  await app.register(sharedState)
  await app.register(audit, { config, env: options.env }) // before auth, which records refusals
  await app.register(auth, { config, env: options.env })
  await app.register(pressure, config.http.pressure)
  await app.register(inFlight, { limits: config.http.inFlight })
  await app.register(rateLimit, config.http.rateLimit)
  await app.register(access)
  await app.register(metrics)
  await app.register(adminListener, { host: config.http.adminHost ?? config.host, port: config.http.adminPort })
  await app.register(approvals)
  await app.register(calls)
  await app.register(detachedCalls)
  await app.register(idempotency)
  await app.register(openapi)
}

export async function buildApp (config: GatewayConfig, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const logger = options.logger ?? createLogger(config)
  const app = Fastify({
    // pino's Logger and Fastify's base logger type differ only in generics.
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: config.http.bodyLimitBytes,
    ...serverOptions(config.http),
    // The routes read comma lists and digit strings themselves: no silent type coercion of input.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory() } }
  })
  // Beyond it new connections are closed on arrival: the process keeps file descriptors for its
  // own work (tools, MCP children, logs) whatever clients do.
  app.server.maxConnections = config.http.maxConnections
  // A gateway built beforehand brings its own tracer (or none).
  const gateway = options.gateway ?? createGateway(config, logger, { env: options.env, tracer: options.tracer ?? await startTracing(config.tracing, logger) })
  app.decorate('gateway', gateway)
  const tracer = gateway.tracer

  await registerEdge(app, config, options, tracer)
  await app.register(autoload, { dir: ROUTES_DIR })

  app.addHook('onClose', async () => {
    await gateway.stop()
    // After the last calls have ended: their spans are exported, not lost with the process.
    await tracer?.shutdown()
  })
  // With Redis the replicas share their pins, and each follows the others' approvals.
  if (app.redis !== undefined) gateway.trust.share(new RedisPinStore(app.redis.client))
  try {
    await gateway.start()
  } catch (err) {
    // A required plugin failed: release what start-up began (MCP children, tools) before failing.
    await app.close()
    throw err
  }
  // Only now is every toolset known (built-ins, MCP servers, plugins): a typo grants nothing, silently.
  for (const { where, toolset, closest } of unknownConfigToolsets(gateway)) {
    logger.warn({ where, toolset, closest }, 'the configuration names a toolset that does not exist')
  }
  setUpReload(app, config, options, logger)
  app.lifecycle.markReady()
  return app
}
