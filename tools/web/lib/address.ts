// Classifies IP addresses for the SSRF guard and matches the operator allowlist (hosts, IPs, CIDRs).
import { domainToASCII } from 'node:url'
import ipaddr from 'ipaddr.js'

type IP = ipaddr.IPv4 | ipaddr.IPv6

export interface AddressVerdict {
  /** The address in canonical form. */
  address: string
  /** ipaddr.js range name, or ours (`ipv4Compatible`), suffixed with the embedded IPv4's range. */
  range: string
  /** Only globally routable unicast is fetchable; everything else is refused unless allowlisted. */
  forbidden: boolean
}

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96') as [IP, number]

function v4FromBytes (bytes: number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes)
}

// IPv6 forms that carry an IPv4 address: connecting to them may reach that IPv4 (dual-stack sockets,
// NAT64 gateways, 6to4 relays), so they are judged by the address they embed. ipaddr.js's rfc6052
// covers both NAT64 prefixes, the well-known 64:ff9b::/96 and the local-use 64:ff9b:1::/48.
function embeddedV4 (ip: ipaddr.IPv6, range: string): ipaddr.IPv4 | undefined {
  const bytes = ip.toByteArray()
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') {
    return v4FromBytes(bytes.slice(12, 16))
  }
  if (range === '6to4') return v4FromBytes(bytes.slice(2, 6))
  return undefined
}

function parseIp (text: string): IP | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text
  // ipaddr.js also reads the odd IPv4 spellings (2130706433, 0x7f000001, 0177.0.0.1) the way
  // getaddrinfo would, which is what matters: they reach the same machine.
  if (!ipaddr.isValid(bare)) return undefined
  try {
    return ipaddr.parse(bare)
  } catch {
    return undefined
  }
}

function classifyV4 (ip: ipaddr.IPv4): AddressVerdict {
  const range = ip.range()
  return { address: ip.toString(), range, forbidden: range !== 'unicast' }
}

function classifyParsed (ip: IP): AddressVerdict {
  if (ip.kind() === 'ipv4') return classifyV4(ip as ipaddr.IPv4)
  const v6 = ip as ipaddr.IPv6
  const address = v6.toRFC5952String()
  const range = v6.range()
  const inner = embeddedV4(v6, range)
  if (inner !== undefined) {
    const innerVerdict = classifyV4(inner)
    return { address, range: `${range}(${innerVerdict.range})`, forbidden: innerVerdict.forbidden }
  }
  // Deprecated IPv4-compatible addresses (::a.b.c.d) fall in ipaddr.js's "unicast" but are no public
  // destination; teredo (a tunnel) and site-local are refused through their own ranges.
  if (range === 'unicast' && v6.match(IPV4_COMPATIBLE)) return { address, range: 'ipv4Compatible', forbidden: true }
  return { address, range, forbidden: range !== 'unicast' }
}

/** The verdict for an IP address (any spelling, brackets and IPv6 zone allowed); undefined when `text` is not an IP. */
export function classifyAddress (text: string): AddressVerdict | undefined {
  const ip = parseIp(text)
  return ip === undefined ? undefined : classifyParsed(ip)
}

/** Plain words for a range name, for refusal messages a model and an operator can read. */
export function describeRange (range: string): string {
  const base = range.replace(/\(.*\)$/, '')
  const inner = /\((.*)\)$/.exec(range)?.[1]
  const words: Record<string, string> = {
    loopback: 'a loopback address',
    private: 'a private-network address',
    uniqueLocal: 'a private-network (unique local) address',
    linkLocal: 'a link-local address (this range holds cloud metadata services)',
    carrierGradeNat: 'a carrier-grade NAT (shared) address',
    multicast: 'a multicast address',
    unspecified: 'an unspecified address',
    broadcast: 'the broadcast address',
    reserved: 'a reserved address',
    ipv4Compatible: 'an IPv4-compatible IPv6 address (deprecated)',
    deprecatedSiteLocal: 'a site-local IPv6 address (deprecated)',
    teredo: 'a Teredo tunnel address'
  }
  if (inner !== undefined) return `an IPv6 address embedding ${words[inner] ?? `an IPv4 address of range "${inner}"`}`
  return words[base] ?? `a non-public address (range "${base}")`
}

export interface AllowList {
  /** Lower-case ASCII hostnames without a trailing dot. */
  hosts: ReadonlySet<string>
  networks: ReadonlyArray<[IP, number]>
  /** Entries that are neither a hostname, an IP nor a CIDR network (reported, never matched). */
  invalid: readonly string[]
}

function normaliseHost (host: string): string {
  return host.toLowerCase().replace(/\.+$/, '')
}

/** Reads `config.web.allowHosts`: `example.internal`, `127.0.0.1`, `::1`, `10.0.0.0/8`, `fd00::/8`. */
export function parseAllowList (entries: readonly string[]): AllowList {
  const hosts = new Set<string>()
  const networks: Array<[IP, number]> = []
  const invalid: string[] = []
  for (const raw of entries) {
    const entry = raw.trim()
    if (entry === '') continue
    const bare = entry.startsWith('[') && entry.endsWith(']') ? entry.slice(1, -1) : entry
    if (bare.includes('/')) {
      if (ipaddr.isValidCIDR(bare)) networks.push(ipaddr.parseCIDR(bare) as [IP, number])
      else invalid.push(entry)
      continue
    }
    const ip = parseIp(bare)
    if (ip !== undefined) {
      networks.push([ip, ip.kind() === 'ipv4' ? 32 : 128])
      continue
    }
    // Unicode names are compared in their punycode form, as URL parsing gives hostnames.
    const ascii = domainToASCII(normaliseHost(bare))
    if (ascii === '') invalid.push(entry)
    else hosts.add(ascii)
  }
  return { hosts, networks, invalid }
}

/** Exact, case-insensitive hostname match (a trailing dot is ignored); IP literals go through addressAllowed. */
export function hostAllowed (list: AllowList, hostname: string): boolean {
  return list.hosts.size > 0 && list.hosts.has(normaliseHost(hostname))
}

/** Whether an address falls in an allowlisted IP or network; an IPv4-mapped IPv6 also matches as its IPv4. */
export function addressAllowed (list: AllowList, address: string): boolean {
  if (list.networks.length === 0) return false
  const ip = parseIp(address)
  if (ip === undefined) return false
  const candidates: IP[] = [ip]
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) candidates.push((ip as ipaddr.IPv6).toIPv4Address())
  return candidates.some((candidate) =>
    list.networks.some(([network, bits]) => network.kind() === candidate.kind() && candidate.match(network, bits)))
}
