// Protected mode: a gateway without API keys or sign-in serves anyone who can reach it, so it may listen only
// on loopback unless the operator says, with GATEWAY_ALLOW_OPEN=true, that this is intended.
import { isIP } from 'node:net'
import { InvalidConfigError } from '../shared/errors.ts'
import type { GatewayConfig } from './schema.ts'

export function isLoopback (host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true
  if (isIP(bare) === 4) return bare.startsWith('127.')
  if (isIP(bare) === 6) return bare === '::1' || /^(0{0,4}:){7}0{0,3}1$/.test(bare) || bare === '::ffff:127.0.0.1'
  return false
}

/** Whether callers must present a credential: an API key, or an access token when sign-in is configured. */
export function isGuarded (config: GatewayConfig): boolean {
  return config.auth.keys.length > 0 || config.auth.oauth !== undefined
}

export function assertProtectedMode (config: GatewayConfig): void {
  if (isGuarded(config) || config.auth.allowOpen || isLoopback(config.host)) return
  throw new InvalidConfigError(
    `refusing to listen on ${config.host} without API keys: anyone who can reach it could run tools. ` +
    'Configure auth.keys or auth.oauth in the GATEWAY_CONFIG file, bind HOST to 127.0.0.1, or set GATEWAY_ALLOW_OPEN=true if an open gateway is intended.'
  )
}

/** What to warn about at start when the operator chose an open gateway on a reachable address. */
export function openGatewayWarning (config: GatewayConfig): string | undefined {
  if (isGuarded(config) || isLoopback(config.host)) return undefined
  return `open gateway: listening on ${config.host} without API keys (GATEWAY_ALLOW_OPEN=true), so anyone who can reach the port can run its tools; configure auth.keys unless a network policy keeps everyone else out`
}
