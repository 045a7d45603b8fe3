// The store of cut results: bounded in memory whatever arrives, oldest evicted first, one owner's
// flood never evicting another owner's results, expired on time, one caller's results invisible to every other, ids that cannot be guessed, and slices that
// rebuild the text exactly.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ResultStore, type ResultStoreLimits } from '../../src/results/result-store.ts'
import { pageOf } from '../../src/results/read.ts'

const LIMITS: ResultStoreLimits = { maxTotalBytes: 1_000_000, maxResultBytes: 300_000, ttlMs: 60_000 }

function store (limits: Partial<ResultStoreLimits> = {}, options: { open?: boolean, now?: () => number } = {}): ResultStore {
  // One owner may fill the whole store unless a test says otherwise (the per-owner tests below).
  const maxBytesPerKey = limits.maxBytesPerKey ?? limits.maxTotalBytes ?? LIMITS.maxTotalBytes
  const made = new ResultStore({ ...LIMITS, maxBytesPerKey, ...limits }, { open: options.open ?? false, now: options.now })
  return made
}

test('under a stream of large results the store never exceeds its cap, and evicts the oldest first', (t) => {
  const results = store()
  t.after(() => results.clear())
  const kept: Array<{ id: string, text: string }> = []
  let seed = 7
  for (let i = 0; i < 600; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    const text = String.fromCharCode(97 + (i % 26)).repeat(1000 + (seed % 140_000))
    const id = results.keep('alice', text)
    assert.ok(id !== undefined, `result ${i} (${text.length} characters) is under the per-result cap`)
    kept.push({ id, text })
    assert.ok(results.totalBytes <= LIMITS.maxTotalBytes, `after ${i + 1} results: ${results.totalBytes} bytes`)
  }
  // What is still there is exactly the newest results, each whole, and they account for every byte.
  const present = kept.filter(({ id }) => results.get('alice', id) !== undefined)
  assert.ok(present.length >= 3 && present.length < kept.length, `${present.length} kept`)
  assert.deepEqual(present, kept.slice(kept.length - present.length), 'the oldest went first')
  assert.equal(results.size, present.length)
  assert.equal(results.totalBytes, present.reduce((sum, { text }) => sum + text.length * 2, 0))
  for (const { id, text } of present.slice(-3)) assert.equal(results.get('alice', id)!.slice(0, text.length), text)
})

test('a result over the per-result cap, and any result in a store of size 0, is not kept', () => {
  assert.equal(store({ maxResultBytes: 1000 }).keep('alice', 'x'.repeat(501)), undefined, '1002 bytes > 1000')
  assert.match(store({ maxResultBytes: 1000 }).keep('alice', 'x'.repeat(500))!, /^res_/)
  assert.equal(store({ maxTotalBytes: 0 }).keep('alice', 'x'), undefined)
})

test('results expire after ttlMs, and give their memory back', () => {
  let now = 1_000
  const results = store({ ttlMs: 500 }, { now: () => now })
  const first = results.keep('alice', 'a'.repeat(100))!
  now += 300
  const second = results.keep('alice', 'b'.repeat(100))!
  now += 250 // the first is 550 ms old, the second 250 ms
  assert.equal(results.get('alice', first), undefined)
  assert.equal(results.get('alice', second)?.length, 100)
  assert.equal(results.totalBytes, 200)
  now += 300
  assert.equal(results.get('alice', second), undefined)
  assert.equal(results.totalBytes, 0)
  assert.equal(results.size, 0)
})

test('the expiry timer frees memory even when nobody reads', async () => {
  const results = store({ ttlMs: 30 })
  results.keep('alice', 'x'.repeat(1000))
  const deadline = Date.now() + 5_000
  while (results.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  assert.equal(results.size, 0)
  assert.equal(results.totalBytes, 0)
})

test('a result exists only for its owner; with keys, a caller without one owns nothing', (t) => {
  const keyed = store()
  const id = keyed.keep('alice', 'secret text')!
  assert.equal(keyed.get('alice', id)?.length, 11)
  assert.equal(keyed.get('bob', id), undefined)
  assert.equal(keyed.get(undefined, id), undefined)
  assert.equal(keyed.keep(undefined, 'no owner'), undefined, 'nobody could ever read it')

  const open = store({}, { open: true })
  const anonymous = open.keep(undefined, 'everyone is anonymous')!
  assert.equal(open.get(undefined, anonymous)?.length, 21)
  assert.equal(open.get('anonymous', anonymous)?.length, 21)
  assert.equal(open.get('stdio', anonymous), undefined, 'the local stdio client is another caller')
  t.after(() => { keyed.clear(); open.clear() })
})

test('ids are random: 144 bits in base64url, never repeated', () => {
  const results = store()
  const ids = new Set<string>()
  for (let i = 0; i < 2000; i++) ids.add(results.keep('alice', 'x')!)
  assert.equal(ids.size, 2000)
  for (const id of ids) assert.match(id, /^res_[A-Za-z0-9_-]{24}$/)
  // Random, not a counter: two consecutive ids share no long prefix.
  const [a, b] = [...ids]
  assert.notEqual(a.slice(0, 10), b.slice(0, 10))
  results.clear()
})

test('paging rebuilds the text exactly, never splitting a surrogate pair; an offset past the end is refused', () => {
  const results = store()
  const text = Array.from({ length: 500 }, (_, i) => `${i}🙂é\n`).join('')
  const kept = results.get('alice', results.keep('alice', text)!)!
  for (const limit of [1, 2, 7, 100, 100_000]) {
    let offset: number | null = 0
    let rebuilt = ''
    while (offset !== null) {
      const page = pageOf(kept, offset, limit)
      assert.equal(page.totalLength, text.length)
      assert.ok(!/[\uD800-\uDBFF]$/.test(page.content), `limit ${limit}: a page ends on half a pair`)
      assert.ok(page.content.length <= Math.max(limit, 2), `limit ${limit}: ${page.content.length} characters`)
      rebuilt += page.content
      offset = page.nextOffset
    }
    assert.equal(rebuilt, text, `limit ${limit}`)
  }
  assert.deepEqual(pageOf(kept, text.length, 10), { id: kept.id, offset: text.length, content: '', totalLength: text.length, nextOffset: null })
  assert.throws(() => pageOf(kept, text.length + 1, 10), { code: 'GW_ERR_BAD_REQUEST', message: new RegExp(`past the end of result ${kept.id}, which has ${text.length} characters`) })
  results.clear()
})

test('media count in the caps by their decoded bytes, and leave with their result', (t) => {
  const results = store({ maxTotalBytes: 10_000, maxResultBytes: 6_000 })
  t.after(() => results.clear())
  const image = { kind: 'image' as const, mimeType: 'image/png', data: Buffer.alloc(4_000, 1).toString('base64') }
  assert.equal(results.keep('alice', 'x'.repeat(1_001), [image]), undefined, '2002 + 4000 bytes > 6000')
  const first = results.keep('alice', 'caption', [image])
  assert.ok(first !== undefined)
  assert.equal(results.totalBytes, 14 + 4_000)
  assert.deepEqual(results.get('alice', first)?.media, [{ kind: 'image', mimeType: 'image/png', data: Buffer.alloc(4_000, 1) }])
  assert.equal(results.get('bob', first), undefined, 'another caller sees no media either')
  const second = results.keep('alice', 'caption', [image])
  const third = results.keep('alice', 'caption', [image])
  assert.ok(second !== undefined && third !== undefined)
  assert.equal(results.get('alice', first), undefined, 'the oldest went to make room')
  assert.equal(results.totalBytes, 2 * (14 + 4_000))
})

test('one owner over its own cap loses its own oldest results, never another owner\'s', (t) => {
  const results = store({ maxTotalBytes: 1_000_000, maxBytesPerKey: 250_000 })
  t.after(() => results.clear())
  const bob = results.keep('bob', 'b'.repeat(1_000))!
  const flood: string[] = []
  for (let i = 0; i < 1_000; i++) flood.push(results.keep('alice', 'a'.repeat(50_000))!)
  assert.equal(results.get('bob', bob)?.slice(0, 3), 'bbb', 'bob\'s one result outlived alice\'s thousand')
  assert.ok(results.bytesOf('alice') <= 250_000, `${results.bytesOf('alice')} bytes`)
  assert.equal(results.bytesOf('alice'), 2 * 100_000, 'two of alice\'s 100 000-byte results fit her cap')
  assert.deepEqual(flood.filter((id) => results.get('alice', id) !== undefined), flood.slice(-2), 'hers went oldest first')
  assert.equal(results.keep('alice', 'a'.repeat(125_001)), undefined, 'one result over the per-owner cap is not kept')
})

test('past the total cap the owner holding the most pays: an owner under its fair share keeps everything', (t) => {
  // Per-owner caps that add up to more than the store: five owners of 300 000 bytes each, 1 MB in all.
  const results = store({ maxTotalBytes: 1_000_000, maxBytesPerKey: 300_000 })
  t.after(() => results.clear())
  const small = [results.keep('erin', 'e'.repeat(10_000))!, results.keep('erin', 'e'.repeat(10_000))!]
  for (let round = 0; round < 20; round++) {
    for (const owner of ['alice', 'bob', 'carol', 'dave']) results.keep(owner, owner[0].repeat(50_000))
    assert.ok(results.totalBytes <= 1_000_000, `round ${round}: ${results.totalBytes} bytes`)
  }
  for (const id of small) assert.ok(results.get('erin', id) !== undefined, 'erin, under her share, lost nothing')
  for (const owner of ['alice', 'bob', 'carol', 'dave']) {
    assert.ok(results.bytesOf(owner) >= 200_000 && results.bytesOf(owner) <= 300_000, `${owner}: ${results.bytesOf(owner)} bytes`)
  }
})

test('without maxBytesPerKey an owner may take a quarter of the store', () => {
  const results = new ResultStore({ ...LIMITS, maxTotalBytes: 1_000_000 }, { open: false })
  assert.equal(results.limits.maxBytesPerKey, 250_000)
  for (let i = 0; i < 10; i++) results.keep('alice', 'a'.repeat(50_000))
  assert.equal(results.bytesOf('alice'), 200_000)
  results.clear()
})
