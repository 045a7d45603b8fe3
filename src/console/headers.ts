// The headers of every /console answer. The page handles an operator's API key or access token, so
// it runs only its own scripts and styles (no inline code, no eval: an injected string cannot run),
// talks only to this gateway and the identity provider, and cannot be framed (clickjacking) or leak
// its URL (which carries the authorization code on the way back from sign-in) as a Referer.

/** Where the page may connect and submit forms, beyond itself: the identity provider's origins. */
export interface ProviderOrigins {
  /** fetch targets: the issuer (discovery) and its token endpoint. */
  readonly connect: readonly string[]
  /** navigation targets of forms: the issuer and its authorization endpoint. */
  readonly form: readonly string[]
}

export const NO_PROVIDER: ProviderOrigins = Object.freeze({ connect: [], form: [] })

/** The origin of an http(s) URL, or undefined for anything else. */
export function originOf (url: string | undefined): string | undefined {
  if (url === undefined) return undefined
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : undefined
  } catch {
    return undefined
  }
}

function sources (extra: readonly string[]): string {
  return ['\'self\'', ...new Set(extra)].join(' ')
}

export function contentSecurityPolicy (origins: ProviderOrigins): string {
  return [
    'default-src \'none\'',
    'script-src \'self\'',
    'style-src \'self\'',
    'img-src \'self\' data:',
    `connect-src ${sources(origins.connect)}`,
    `form-action ${sources(origins.form)}`,
    'frame-ancestors \'none\'',
    'base-uri \'none\''
  ].join('; ')
}

export function consoleHeaders (origins: ProviderOrigins): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy(origins),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'cache-control': 'no-cache'
  }
}
