// A browser's part of the authorization code flow, without a browser: follows the provider's redirects
// (authorization endpoint → login → consent → back) carrying its cookies, and stops at the first
// redirect that leaves the provider, which is the client's redirect_uri with the code (or the error).
import { ACCOUNT_HEADER, CONSENT_HEADER } from './auto-interaction.ts'

export interface FollowOptions {
  /** The user who signs in; default the provider's `loginAs`. */
  account?: string
  /** Refuse consent: the redirect then carries error=access_denied. */
  deny?: boolean
  /** Bound on the whole walk; default 5 000 ms. */
  timeoutMs?: number
}

const MAX_REDIRECTS = 12

function keepCookies (jar: Map<string, string>, response: Response): void {
  for (const cookie of response.headers.getSetCookie()) {
    const pair = cookie.split(';', 1)[0] ?? ''
    const eq = pair.indexOf('=')
    if (eq < 1) continue
    const name = pair.slice(0, eq).trim()
    const value = pair.slice(eq + 1).trim()
    // Paths are ignored: one flow at a time, and the provider clears a cookie by sending it empty.
    if (value === '') jar.delete(name)
    else jar.set(name, value)
  }
}

/** Walks an authorization URL of the provider at `origin`; returns the URL it was finally sent to. */
export async function followAuthorization (authorizationUrl: string | URL, origin: string, options: FollowOptions = {}): Promise<URL> {
  const signal = AbortSignal.timeout(options.timeoutMs ?? 5000)
  const jar = new Map<string, string>()
  let url = new URL(authorizationUrl)
  for (let hop = 0; hop < MAX_REDIRECTS; hop++) {
    if (url.origin !== origin) return url
    const headers: Record<string, string> = {}
    if (jar.size > 0) headers.cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
    if (options.account !== undefined) headers[ACCOUNT_HEADER] = options.account
    if (options.deny === true) headers[CONSENT_HEADER] = 'deny'
    const response = await fetch(url, { headers, redirect: 'manual', signal })
    keepCookies(jar, response)
    const location = response.headers.get('location')
    if (response.status < 300 || response.status > 399 || location === null) {
      throw new Error(`authorization stopped at ${url.pathname} with HTTP ${response.status}: ${await response.text()}`)
    }
    await response.body?.cancel()
    url = new URL(location, url)
  }
  throw new Error(`authorization did not leave the provider after ${MAX_REDIRECTS} redirects`)
}
