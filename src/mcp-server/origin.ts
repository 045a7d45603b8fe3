// DNS-rebinding protection for /mcp: a web page the user opens can make the browser post to a
// gateway on the user's machine (a name rebound to 127.0.0.1), but the browser always names the
// page's origin then. Requests without Origin come from programs, not pages, and pass.
import { isLoopback } from '../config/protected-mode.ts'
import { LOOPBACK_HOSTNAMES } from '../http/host-names.ts'

const LOOPBACK_NAMES = new Set(LOOPBACK_HOSTNAMES)

function normalised (origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase()
}

/** A page served from this machine itself (http(s)://localhost, 127.0.0.1 or [::1], any port). */
function isLoopbackOrigin (origin: string): boolean {
  try {
    const url = new URL(origin)
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_NAMES.has(url.hostname)
  } catch {
    return false
  }
}

/**
 * Which Origin headers may use /mcp. The configured list when there is one (`*` = any); without one,
 * a gateway on loopback accepts pages of loopback origins (the MCP Inspector at localhost:6274, as
 * the MCP SDK's own default does), and a gateway on another address accepts no page at all.
 */
export function originPolicy (allowed: readonly string[], host: string): (origin: string | undefined) => boolean {
  if (allowed.length === 0) {
    const loopback = isLoopback(host)
    return (origin) => origin === undefined || (loopback && isLoopbackOrigin(origin))
  }
  const accepted = new Set(allowed.map(normalised))
  return (origin) => origin === undefined || accepted.has('*') || accepted.has(normalised(origin))
}
