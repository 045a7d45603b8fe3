// Host names for the DNS-rebinding checks (the Host check of every request, the Origin check of
// /mcp), with the MCP SDK's rules written out: the checks run at start and on every request, and the
// SDK loads only where MCP is used (test/http/host-names.test.ts holds them to the SDK's).

/** The loopback names as URL.hostname spells them: the MCP SDK's localhostAllowedHostnames(). */
export const LOOPBACK_HOSTNAMES: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '[::1]'])

export type HostVerdict = { ok: true, hostname: string } | { ok: false, message: string }

/** Whether a Host header names one of `allowed`, as the MCP SDK's validateHostHeader decides (and words) it. */
export function checkHostHeader (hostHeader: string, allowed: readonly string[]): HostVerdict {
  if (hostHeader === '') return { ok: false, message: 'Missing Host header' }
  let hostname: string
  try {
    hostname = new URL(`http://${hostHeader}`).hostname
  } catch {
    return { ok: false, message: `Invalid Host header: ${hostHeader}` }
  }
  if (!allowed.includes(hostname)) return { ok: false, message: `Invalid Host: ${hostname}` }
  return { ok: true, hostname }
}
