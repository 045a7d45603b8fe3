// The process entry point: read the command line, load and check the config, then hand over to
// one of the two ways the gateway serves, side by side in src/entry/: its HTTP port (http.ts) or,
// with --stdio, one MCP client on stdin/stdout (stdio.ts). A bad command line exits 2 with the
// usage; a bad config exits 1 with a message naming the field.
import { parseCommandLine, USAGE, UsageError, type CommandLine } from './entry/cli-options.ts'
import { loadConfig } from './config/load.ts'
import { assertProtectedMode } from './config/protected-mode.ts'

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

async function main (): Promise<void> {
  const command = commandLine()
  if (command.mode === 'help') {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  // The MCP server SDK behind --stdio loads only in that mode. Then, before anything loads that
  // could print: from here on stdout carries JSON-RPC only.
  const stdio = command.mode === 'stdio' ? await import('./entry/stdio.ts') : undefined
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
  else await (await import('./entry/http.ts')).serveHttp(config)
}

await main()
