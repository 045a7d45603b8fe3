// `tool-gateway` (no --stdio): the gateway on its HTTP port, REST and /mcp, with the admin port when
// set; drains gracefully on SIGTERM / SIGINT and reloads the configuration and the tools on SIGHUP.
// A required plugin that fails to load stops the start with its reason.
import closeWithGrace from 'close-with-grace'
import { buildApp } from '../app/app.ts'
import { assertProtectedMode, openGatewayWarning } from '../config/protected-mode.ts'
import type { GatewayConfig } from '../config/schema.ts'
import { createLogger, logLastLine } from '../app/logger.ts'
import { drainAndClose } from './shutdown.ts'

function cannotStart (err: unknown): never {
  process.stderr.write(`tool-gateway: cannot start: ${(err as Error).message}\n`)
  process.exit(1)
}

export async function serveHttp (config: GatewayConfig): Promise<void> {
  const logger = createLogger(config)
  const open = openGatewayWarning(config)
  if (open !== undefined) logger.warn({ host: config.host }, open)
  let app: Awaited<ReturnType<typeof buildApp>> | undefined
  // SIGHUP reloads the configuration and the tools; the process keeps running whatever it finds.
  // Listened to from the start: one that comes while the gateway starts or drains is ignored, not fatal.
  process.on('SIGHUP', () => {
    if (app === undefined || app.lifecycle.draining) {
      logger.warn('SIGHUP ignored: the gateway is starting or shutting down')
      return
    }
    logger.info('SIGHUP: reloading the configuration')
    app.reload().catch(() => {})
  })
  try {
    // A reload is refused where a start would be: an open gateway on a reachable address.
    app = await buildApp(config, { logger, reload: { validate: assertProtectedMode } })
  } catch (err) {
    // Start-up refused (a required plugin failed to load): the log has the details, stderr the reason.
    cannotStart(err)
  }
  // The grace given to close-with-grace is ours plus a margin, so the drain decides, not a kill.
  // SIGHUP is left out: it reloads (below) instead of shutting down.
  closeWithGrace({ delay: config.http.shutdownGraceMs + 5_000, logger, skip: ['SIGHUP'] }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'fatal error, shutting down')
    else logger.info({ signal }, 'shutting down')
    await drainAndClose(app!, config.http.shutdownGraceMs)
    await logLastLine(logger, 'shut down', 2_000)
  })
  await app!.listen({ host: config.host, port: config.port })
  await app!.listenAdmin()
}
