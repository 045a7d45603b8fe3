// DNS-rebinding protection for /mcp: a web page the user opens can make the browser post to a
// gateway on the user's machine (a name rebound to 127.0.0.1), but the browser always names the
// page's origin then. Requests without Origin come from programs, not pages, and pass.

/** Whether a request with this Origin header may use /mcp. `*` in the list allows any origin. */
export function originAllowed (origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined) return true
  const normalised = origin.trim().replace(/\/+$/, '').toLowerCase()
  return allowed.some((entry) => entry === '*' || entry.trim().replace(/\/+$/, '').toLowerCase() === normalised)
}
