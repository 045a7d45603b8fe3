// The process entry point: read the command line, load and check the config, build the logger and
// the app, then either listen (HTTP: REST and /mcp) or, with --stdio, serve MCP on stdin/stdout;
// drain gracefully on SIGTERM / SIGINT; reload the configuration and the tools on SIGHUP. A bad
// command line exits 2 with the usage; a bad config, or a required plugin that fails to load,
// exits 1 with a message naming the field or the plugin.
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.ts'
import { parseCommandLine, USAGE, UsageError, type CommandLine } from './cli-options.ts'
import { loadConfig } from './config/load.ts'
import { assertProtectedMode, openGatewayWarning } from './config/protected-mode.ts'
import type { GatewayConfig } from './config/schema.ts'
import { createLogger, logLastLine } from './logger.ts'
import { drainAndClose } from './shutdown.ts'

function cannotStart (err: unknown): never {
  process.stderr.write(`tool-gateway: cannot start: ${(err as Error).message}\n`)
  process.exit(1)
}

function commandLine (): CommandLine {
  try {
    return parseCommandLine(process.argv.slice(2))
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    process.stderr.write(`tool-gateway: ${err.message}\n${USAGE}\n`)
    process.exit(2)
  }
}

async function serveHttp (config: GatewayConfig): Promise<void> {
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

async function main (): Promise<void> {
  const command = commandLine()
  if (command.mode === 'help') {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  // The MCP server SDK behind --stdio loads only in that mode. Then, before anything loads that
  // could print: from here on stdout carries JSON-RPC only.
  const stdio = command.mode === 'stdio' ? await import('./mcp-server/stdio-process.ts') : undefined
  const protocolOut = stdio?.claimStdout()
  let config
  try {
    config = await loadConfig()
    // Protected mode is about a listening port; stdio opens none.
    if (command.mode === 'http') assertProtectedMode(config)
  } catch (err) {
    cannotStart(err)
  }
  if (command.mode === 'stdio') await stdio!.runStdio(config, command, protocolOut!)
  else await serveHttp(config)
}

await main()
