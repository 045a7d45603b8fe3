// DNS-rebinding protection for the whole gateway. A web page the user opens can rebind its own name
// to 127.0.0.1 and then, being "same origin", read /definitions and post to /dispatch or /mcp of a
// gateway on the user's machine; the one thing it cannot change is the Host header, which names the
// page's domain. So a gateway listening on loopback answers only requests addressed to a loopback
// name, and an operator can name the hosts of any other gateway (http.allowedHosts).
import fp from 'fastify-plugin'
import type { GatewayConfig } from '../config/schema.ts'
import { isLoopback } from '../config/protected-mode.ts'
import { HostNotAllowedError } from '../shared/errors.ts'
import { checkHostHeader, LOOPBACK_HOSTNAMES } from './host-names.ts'

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
  // A callback hook, not an async one: it runs on every request of every route, and answers at once.
  app.addHook('onRequest', (request, _reply, done) => {
    const host = request.headers.host ?? ''
    if (accepted.has(host)) {
      done()
      return
    }
    const verdict = checkHostHeader(host, allowed)
    if (verdict.ok) {
      if (accepted.size < 64) accepted.add(host)
      done()
      return
    }
    request.log.warn({ host }, 'request refused: Host not allowed')
    done(new HostNotAllowedError(`${verdict.message}: this gateway answers requests addressed to ${allowed.join(', ')}; add the name to http.allowedHosts (ALLOWED_HOSTS)`))
  })
}, { name: 'host-check' })
