// The SSRF guard of web_extract: URL checks before any connection (scheme, credentials, literal IPs)
// and an undici Agent whose DNS lookup refuses forbidden addresses at connect time.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import type { LookupFunction } from 'node:net'
import { Agent } from 'undici'
import { addressAllowed, classifyAddress, describeRange, hostAllowed, type AllowList } from './address.ts'

/** A URL or a destination the guard will not fetch; its message is written for the model. */
export class UrlRefusedError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'UrlRefusedError'
  }
}

function unbracket (host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
}

const HINT = 'an operator can allow trusted hosts or networks with WEB_ALLOW_HOSTS'

function refusal (host: string, address: string, range: string): UrlRefusedError {
  const where = host === address ? address : `${host} resolves to ${address}, which`
  return new UrlRefusedError(`refused by the SSRF guard: ${where} is ${describeRange(range)}; ${HINT}`)
}

/** Throws UrlRefusedError when `address` may not be reached from `host` (the name it came from). */
function assertAddress (allow: AllowList, host: string, address: string): void {
  const verdict = classifyAddress(address)
  // Whatever cannot be read as an address cannot be judged, so it is refused.
  if (verdict === undefined) throw new UrlRefusedError(`refused by the SSRF guard: ${host} resolved to "${address}", not an IP address`)
  if (verdict.forbidden && !addressAllowed(allow, verdict.address)) throw refusal(host, verdict.address, verdict.range)
}

/**
 * Checks a URL before anything connects: http(s) only, no credentials, and a literal IP host must be
 * public or allowlisted (Node connects to literal IPs without a DNS lookup, so the Agent's lookup
 * would never see them). Returns the parsed URL.
 */
export function checkUrl (input: string | URL, allow: AllowList): URL {
  let url: URL
  try {
    url = typeof input === 'string' ? new URL(input) : input
  } catch {
    throw new UrlRefusedError(`not a valid absolute URL: ${JSON.stringify(String(input).slice(0, 200))} (give a full http:// or https:// URL)`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UrlRefusedError(`refused: only http:// and https:// URLs can be fetched, not ${url.protocol}`)
  }
  // Credentials in a URL are either a secret the model should not be sending around or the old
  // `http://trusted.example@evil.example/` trick; neither is needed to read public pages.
  if (url.username !== '' || url.password !== '') {
    throw new UrlRefusedError('refused: URLs with a user name or password (user:pass@host) are not fetched; remove the credentials')
  }
  const host = unbracket(url.hostname)
  if (host === '') throw new UrlRefusedError('not a valid URL: it has no host')
  if (hostAllowed(allow, host)) return url
  // WHATWG parsing already turned decimal, hex, octal and short IPv4 spellings into dotted form.
  const literal = classifyAddress(host)
  if (literal !== undefined) assertAddress(allow, literal.address, literal.address)
  return url
}

/**
 * A dns.lookup that resolves every address of the host and refuses the connection when ANY of
 * them is forbidden: the check happens on the very addresses the socket will use, so a DNS answer
 * that changes between a check and the connection (rebinding) cannot slip through. A host
 * resolving to a mix of public and private addresses is refused rather than pinned: that mix is
 * what rebinding attacks look like.
 */
export function guardedLookup (allow: AllowList): LookupFunction {
  return (hostname, options, callback) => {
    const host = unbracket(hostname)
    const answer = (addresses: LookupAddress[]): void => {
      if (!hostAllowed(allow, host)) {
        try {
          if (addresses.length === 0) throw new UrlRefusedError(`refused by the SSRF guard: ${host} has no address`)
          for (const entry of addresses) assertAddress(allow, host, entry.address)
        } catch (err) {
          callback(err as NodeJS.ErrnoException, '', 0)
          return
        }
      }
      // net.connect asks for every address when it tries IPv4 and IPv6 in turn (autoSelectFamily).
      if (options.all === true) callback(null, addresses)
      else callback(null, addresses[0].address, addresses[0].family)
    }
    const literal = classifyAddress(host)
    if (literal !== undefined) {
      answer([{ address: literal.address, family: literal.address.includes(':') ? 6 : 4 }])
      return
    }
    dnsLookup(host, { all: true, family: options.family, hints: options.hints }, (err, addresses) => {
      if (err) callback(err, '', 0)
      else answer(addresses)
    })
  }
}

/** An undici Agent that can only connect where the guard allows; close it when the call is done. */
export function createGuardedAgent (allow: AllowList, connectTimeoutMs: number): Agent {
  return new Agent({
    connect: { lookup: guardedLookup(allow), timeout: connectTimeoutMs },
    // One call fetches a handful of pages; no reason to keep sockets around after it.
    keepAliveTimeout: 1_000,
    connections: 8
  })
}
