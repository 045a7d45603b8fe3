// The SSRF guard's address classifier, allowlist and URL pre-check, table-driven over many spellings (no network).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { LookupAddress } from 'node:dns'
import { addressAllowed, classifyAddress, hostAllowed, parseAllowList } from '../../../tools/web/lib/address.ts'
import { checkUrl, guardedLookup, UrlRefusedError } from '../../../tools/web/lib/ssrf.ts'

const FORBIDDEN: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['fc00::1', 'uniqueLocal'],
  ['fd12:3456::1', 'uniqueLocal'],
  ['169.254.169.254', 'linkLocal'],
  ['169.254.0.1', 'linkLocal'],
  ['fe80::1', 'linkLocal'],
  ['fe80::1%eth0', 'linkLocal'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['100.127.255.254', 'carrierGradeNat'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['::', 'unspecified'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['2001:db8::1', 'reserved'],
  // IPv6 forms that carry an IPv4 address are judged by it.
  ['::ffff:127.0.0.1', 'ipv4Mapped(loopback)'],
  ['::ffff:7f00:1', 'ipv4Mapped(loopback)'],
  ['0:0:0:0:0:ffff:a9fe:a9fe', 'ipv4Mapped(linkLocal)'],
  ['::ffff:0:10.0.0.1', 'rfc6145(private)'],
  ['64:ff9b::127.0.0.1', 'rfc6052(loopback)'],
  ['64:ff9b::a9fe:a9fe', 'rfc6052(linkLocal)'],
  ['64:ff9b:1::c0a8:101', 'rfc6052(private)'],
  ['2002:7f00:1::', '6to4(loopback)'],
  ['2002:c0a8:101::1', '6to4(private)'],
  ['::7f00:1', 'ipv4Compatible'],
  ['::808:808', 'ipv4Compatible'],
  ['fec0::1', 'deprecatedSiteLocal'],
  ['2001::1', 'teredo'],
  // Odd IPv4 spellings read the way getaddrinfo reads them.
  ['2130706433', 'loopback'],
  ['0x7f000001', 'loopback'],
  ['0177.0.0.1', 'loopback'],
  ['0x7f.0.0.1', 'loopback'],
  ['017700000001', 'loopback'],
  ['0xa9fea9fe', 'linkLocal'],
  ['3232235777', 'private']
]

const PUBLIC = ['8.8.8.8', '1.1.1.1', '93.184.215.14', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1']

for (const [text, range] of FORBIDDEN) {
  test(`classifyAddress: ${text} is forbidden (${range})`, () => {
    const verdict = classifyAddress(text)
    assert.ok(verdict, `${text} must be read as an address`)
    assert.equal(verdict.range, range)
    assert.equal(verdict.forbidden, true)
  })
}

test('classifyAddress: public unicast addresses are allowed, embedded public IPv4 too', () => {
  for (const text of PUBLIC) {
    const verdict = classifyAddress(text)
    assert.ok(verdict, text)
    assert.equal(verdict.forbidden, false, `${text} (${verdict.range}) should be fetchable`)
  }
})

test('classifyAddress: hostnames are not addresses', () => {
  for (const text of ['example.com', 'localhost', 'metadata.google.internal', '', '1.2.3.4.5', '::g']) {
    assert.equal(classifyAddress(text), undefined, text)
  }
})

test('parseAllowList: hosts, IPs and CIDR networks; bad entries reported', () => {
  const list = parseAllowList(['Intranet.Example.', '127.0.0.1', '10.0.0.0/8', '[::1]', 'fd00::/8', 'bücher.example', ' ', '10.0.0.0/33', 'a b'])
  assert.deepEqual([...list.hosts].sort(), ['intranet.example', 'xn--bcher-kva.example'])
  assert.equal(list.networks.length, 4)
  assert.deepEqual(list.invalid, ['10.0.0.0/33', 'a b'])

  assert.equal(hostAllowed(list, 'INTRANET.example'), true)
  assert.equal(hostAllowed(list, 'intranet.example.'), true)
  assert.equal(hostAllowed(list, 'evil.intranet.example'), false, 'exact match only, no subdomains')
  assert.equal(hostAllowed(list, 'xn--bcher-kva.example'), true)

  assert.equal(addressAllowed(list, '127.0.0.1'), true)
  assert.equal(addressAllowed(list, '127.0.0.2'), false, 'a single IP is a /32')
  assert.equal(addressAllowed(list, '::ffff:127.0.0.1'), true, 'an IPv4-mapped address matches as its IPv4')
  assert.equal(addressAllowed(list, '10.200.3.4'), true)
  assert.equal(addressAllowed(list, '11.0.0.1'), false)
  assert.equal(addressAllowed(list, '::1'), true)
  assert.equal(addressAllowed(list, 'fd12::1'), true)
  assert.equal(addressAllowed(list, 'fe80::1'), false)
  assert.equal(addressAllowed(parseAllowList([]), '127.0.0.1'), false)
})

const NONE = parseAllowList([])

function refusedMessage (url: string, allow = NONE): string {
  try {
    checkUrl(url, allow)
  } catch (err) {
    assert.ok(err instanceof UrlRefusedError, `${url}: ${String(err)}`)
    return err.message
  }
  assert.fail(`${url} was not refused`)
}

test('checkUrl: odd spellings of loopback and metadata hosts are refused before any connection', () => {
  const urls = [
    'http://127.0.0.1/', 'http://127.1/', 'http://2130706433/', 'http://0x7f000001/', 'http://0177.0.0.1/',
    'http://0x7f.0.0.1:8080/', 'http://%31%32%37.0.0.1/', 'http://127.0.0.1./', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/',
    'http://[0:0:0:0:0:ffff:7f00:1]/', 'http://0.0.0.0/', 'http://0/', 'http://169.254.169.254/latest/meta-data/',
    'http://0xa9fea9fe/', 'http://10.0.0.1/', 'http://192.168.1.1/', 'http://100.64.0.1/', 'http://[fe80::1]/',
    'http://224.0.0.1/', 'http://[64:ff9b::7f00:1]/', 'http://[2002:a9fe:a9fe::]/', 'https://[fd00::1]:8443/'
  ]
  for (const url of urls) assert.match(refusedMessage(url), /refused by the SSRF guard/, url)
  assert.match(refusedMessage('http://169.254.169.254/'), /link-local.*metadata/)
})

test('checkUrl: only http and https; credentials and junk refused with a clear message', () => {
  for (const url of ['file:///etc/passwd', 'ftp://x/', 'data:text/plain,hi', 'gopher://x:70/', 'javascript:alert(1)', 'ws://example.com/']) {
    assert.match(refusedMessage(url), /only http:\/\/ and https:\/\//, url)
  }
  assert.match(refusedMessage('http://user:pass@example.com/'), /user name or password/)
  assert.match(refusedMessage('http://example.com@127.0.0.1/'), /user name or password/)
  assert.match(refusedMessage('not a url'), /not a valid absolute URL/)
  assert.match(refusedMessage('/relative/path'), /not a valid absolute URL/)
})

test('checkUrl: public hosts pass; the allowlist lets trusted private hosts and networks through', () => {
  assert.equal(checkUrl('https://example.com/a?b#c', NONE).hostname, 'example.com')
  assert.equal(checkUrl('http://8.8.8.8/', NONE).hostname, '8.8.8.8')
  const allow = parseAllowList(['127.0.0.0/8', 'intranet.example'])
  assert.equal(checkUrl('http://0x7f000001:81/', allow).hostname, '127.0.0.1')
  assert.equal(checkUrl('http://[::ffff:127.0.0.1]/', allow).hostname, '[::ffff:7f00:1]')
  assert.equal(checkUrl('http://INTRANET.example/', allow).hostname, 'intranet.example')
  assert.match(refusedMessage('http://10.0.0.1/', allow), /private-network/)
  assert.match(refusedMessage('file:///etc/passwd', allow), /only http/, 'the allowlist never opens other schemes')
})

function lookupOnce (allow: ReturnType<typeof parseAllowList>, host: string, all: boolean): Promise<{ err: Error | null, address: string | LookupAddress[] }> {
  return new Promise((resolve) => {
    guardedLookup(allow)(host, { all }, (err, address) => resolve({ err, address }))
  })
}

test('guardedLookup: refuses a name resolving to loopback, in both callback shapes net.connect uses', async () => {
  for (const all of [true, false]) {
    const { err } = await lookupOnce(NONE, 'localhost', all)
    assert.ok(err instanceof UrlRefusedError, `all=${all}`)
    assert.match(err.message, /localhost resolves to .*loopback/)
  }
  const literal = await lookupOnce(NONE, '0x7f000001', false)
  assert.ok(literal.err instanceof UrlRefusedError, 'an odd spelling reaching the lookup is judged as the address it means')
})

test('guardedLookup: an allowlisted name or network passes, with the answer in the shape asked for', async () => {
  const byName = await lookupOnce(parseAllowList(['localhost']), 'localhost', true)
  assert.equal(byName.err, null)
  assert.ok(Array.isArray(byName.address) && byName.address.length > 0)
  const byNetwork = await lookupOnce(parseAllowList(['127.0.0.0/8', '::1']), 'localhost', false)
  assert.equal(byNetwork.err, null)
  assert.equal(typeof byNetwork.address, 'string')
})
