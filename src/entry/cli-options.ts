// The command line of the gateway process. Without options it serves HTTP as configured;
// `--stdio` serves MCP on stdin/stdout instead, for a desktop client that launches it. Everything
// else (port, keys, tools, plugins) comes from the config file and the environment, in both modes.
import { parseArgs } from 'node:util'
import { commaList } from '../http/query.ts'

export const USAGE = `usage: tool-gateway [--stdio [--toolsets a,b] [--disabled c,d]]

  (no option)        serve HTTP (REST and /mcp) as configured (GATEWAY_CONFIG, HOST, PORT, ...)
  --stdio            serve MCP over stdin/stdout for a client that launches the gateway; no port is opened
  --toolsets a,b     with --stdio: serve only these toolsets (as /mcp?toolsets=a,b)
  --disabled c,d     with --stdio: leave these toolsets out (wins over --toolsets)
  --help             show this help`

/** A command line the gateway cannot run with; the process exits 2 with the message and the usage. */
export class UsageError extends Error {}

export type CommandLine =
  | { mode: 'http' }
  | { mode: 'help' }
  | { mode: 'stdio', toolsets?: string[], disabled?: string[] }

/** A comma list option that, when given, must name something (an empty one would widen to all). */
function listOption (value: string | undefined, option: string): string[] | undefined {
  const list = commaList(value)
  if (list !== undefined && list.length === 0) throw new UsageError(`${option} names no toolset (got ${JSON.stringify(value)}): name at least one, or leave ${option} out`)
  return list
}

export function parseCommandLine (args: readonly string[]): CommandLine {
  let parsed
  try {
    parsed = parseArgs({
      args: [...args],
      options: {
        stdio: { type: 'boolean' },
        toolsets: { type: 'string' },
        disabled: { type: 'string' },
        help: { type: 'boolean', short: 'h' }
      },
      strict: true,
      allowPositionals: false
    })
  } catch (err) {
    // parseArgs names the option ("Unknown option '--foo'"); its hint about `--` does not apply here.
    throw new UsageError((err as Error).message.replace(/\. To specify a positional argument.*$/s, ''))
  }
  const { values } = parsed
  if (values.help === true) return { mode: 'help' }
  if (values.stdio !== true) {
    const stray = (['toolsets', 'disabled'] as const).filter((name) => values[name] !== undefined)
    if (stray.length > 0) {
      const named = stray.map((name) => `--${name}`).join(' and ')
      throw new UsageError(`${named} ${stray.length === 1 ? 'applies' : 'apply'} only with --stdio (over HTTP, use /mcp?toolsets=...)`)
    }
    return { mode: 'http' }
  }
  return { mode: 'stdio', toolsets: listOption(values.toolsets, '--toolsets'), disabled: listOption(values.disabled, '--disabled') }
}
