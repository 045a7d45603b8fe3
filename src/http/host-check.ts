// DNS-rebinding protection for the whole gateway. A web page the user opens can rebind its own name
// to 127.0.0.1 and then, being "same origin", read /definitions and post to /dispatch or /mcp of a
// gateway on the user's machine; the one thing it cannot change is the Host header, which names the
// page's domain. So a gateway listening on loopback answers only requests addressed to a loopback
// name, and an operator can name the hosts of any other gateway (http.allowedHosts).
import fp from 'fastify-plugin'
import type { GatewayConfig } from '../config/schema.ts'
import { isLoopback } from '../config/protected-mode.ts'
import { HostNotAllowedError } from '../errors.ts'

// The loopback names, as the MCP SDK's own DNS-rebinding check lists them (IPv6 in brackets, as
// URL.hostname gives it). The check is written here, not imported, so that the gateway's every
// request does not load the MCP server SDK (and zod) at start-up.
const LOOPBACK_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]']

/** The host name a Host header names (port dropped, lower case), or an error message. */
function hostnameOf (host: string): { hostname: string } | { message: string } {
  if (host === '') return { message: 'Missing Host header' }
  try {
    return { hostname: new URL(`http://${host}`).hostname }
  } catch {
    return { message: `Invalid Host header: ${host}` }
  }
}

/** Host names requests must address, or undefined when any is accepted. */
export function allowedHostnames (config: Pick<GatewayConfig, 'host' | 'http'>): string[] | undefined {
  const configured = config.http.allowedHosts
  if (configured.includes('*')) return undefined
  if (configured.length > 0) return configured.map((host) => host.toLowerCase())
  if (!isLoopback(config.host)) return undefined
  const own = config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host
  return [...new Set([...LOOPBACK_HOSTNAMES, own.toLowerCase()])]
}

export default fp<{ config: GatewayConfig }>(async function hostCheck (app, { config }) {
  const allowed = allowedHostnames(config)
  if (allowed === undefined) return
  // Clients send the same few Host values again and again: each is parsed once.
  const accepted = new Set<string>()
  app.addHook('onRequest', async (request) => {
    const host = request.headers.host ?? ''
    if (accepted.has(host)) return
    const named = hostnameOf(host)
    if ('hostname' in named && allowed.includes(named.hostname)) {
      if (accepted.size < 64) accepted.add(host)
      return
    }
    const message = 'hostname' in named ? `Invalid Host: ${named.hostname}` : named.message
    request.log.warn({ host }, 'request refused: Host not allowed')
    throw new HostNotAllowedError(`${message}: this gateway answers requests addressed to ${allowed.join(', ')}; add the name to http.allowedHosts (ALLOWED_HOSTS)`)
  })
}, { name: 'host-check' })
