// The process entry point: load and check the config, build the logger and the app, listen, and
// drain gracefully on SIGTERM / SIGINT. A bad config, or a required plugin that fails to load, exits
// with code 1 and a message naming the field or the plugin.
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.ts'
import { loadConfig } from './config/load.ts'
import { assertProtectedMode } from './config/protected-mode.ts'
import { createLogger } from './logger.ts'
import { drainAndClose } from './shutdown.ts'

async function main (): Promise<void> {
  let config
  try {
    config = await loadConfig()
    assertProtectedMode(config)
  } catch (err) {
    process.stderr.write(`tool-gateway: cannot start: ${(err as Error).message}\n`)
    process.exit(1)
  }
  const logger = createLogger(config)
  let app
  try {
    app = await buildApp(config, { logger })
  } catch (err) {
    // Start-up refused (a required plugin failed to load): the log has the details, stderr the reason.
    process.stderr.write(`tool-gateway: cannot start: ${(err as Error).message}\n`)
    process.exit(1)
  }
  // The grace given to close-with-grace is ours plus a margin, so the drain decides, not a kill.
  closeWithGrace({ delay: config.http.shutdownGraceMs + 5_000, logger }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'fatal error, shutting down')
    else logger.info({ signal }, 'shutting down')
    await drainAndClose(app, config.http.shutdownGraceMs)
  })
  await app.listen({ host: config.host, port: config.port })
}

await main()
