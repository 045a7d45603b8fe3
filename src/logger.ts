// The gateway's pino logger: JSON lines in production, pretty only on a terminal (and only when
// pino-pretty, a dev dependency, is installed). Authorization headers and argument names the
// config marks secret are redacted wherever they are logged.
import pino, { type DestinationStream, type Logger } from 'pino'
import type { GatewayConfig } from './config/schema.ts'

function prettyAvailable (): boolean {
  try {
    import.meta.resolve('pino-pretty')
    return true
  } catch {
    return false
  }
}

/** Paths pino must censor: credentials in headers, and secret arguments under `args`. */
export function redactionPaths (config: GatewayConfig): string[] {
  const paths = ['req.headers.authorization', 'req.headers["x-api-key"]', 'headers.authorization', 'headers["x-api-key"]']
  for (const name of config.logging.secretArguments) {
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`
    paths.push(`args${key}`, `args.*${key}`)
  }
  return paths
}

export function createLogger (config: GatewayConfig, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: config.logLevel,
    redact: { paths: redactionPaths(config), censor: '[redacted]' }
  }
  if (destination !== undefined) return pino(options, destination)
  if (process.stdout.isTTY && prettyAvailable()) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:standard' } } })
  }
  return pino(options)
}
