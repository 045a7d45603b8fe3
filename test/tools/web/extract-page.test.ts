// extractPage on its own, against a loopback server: the exact result of each failure and
// truncation branch (cancelled, refused connection, unsupported type, markup capped, error status).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseAllowList } from '../../../tools/web/lib/address.ts'
import { prettyJson } from '../../../tools/web/lib/content.ts'
import { extractPage, INLINE_TEXT_CHARS, type ExtractOptions } from '../../../tools/web/lib/extract.ts'
import { MAX_HTML_CHARS } from '../../../tools/web/lib/html.ts'
import { HtmlConverter } from '../../../tools/web/lib/html-pool.ts'
import { createGuardedAgent } from '../../../tools/web/lib/ssrf.ts'

const RESULT_KEYS = ['url', 'final_url', 'status', 'title', 'content_type', 'content', 'truncated']
// Over the markup cap, but with next to no visible text: only the cap can cut it.
const HEAVY_MARKUP = `<html><head><title>Heavy</title></head><body><p>Short visible text.</p><i title="${'a'.repeat(MAX_HTML_CHARS)}"></i></body></html>`

// Seconds of parsing in any thread (it grows with the square of the depth): the test converter's budget gives it up first.
const NESTED = `<html><body>${'<b>'.repeat(200_000)}deep</body></html>`

const BIG_JSON = JSON.stringify(Array.from({ length: 5_000 }, (_, id) => ({ id, name: `item ${id}` })))
const SMALL_JSON = '{"name":"keeper","steps":100}'

let server: Server
let base: string
const allow = parseAllowList(['127.0.0.1'])
const agent = createGuardedAgent(allow, 2_000)
const converter = new HtmlConverter()

function route (req: IncomingMessage, res: ServerResponse): void {
  switch (req.url) {
    case '/blob': res.writeHead(200).end(Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 0, 0])); return
    case '/heavy': res.writeHead(200, { 'content-type': 'text/html' }).end(HEAVY_MARKUP); return
    case '/gone-long': res.writeHead(410, { 'content-type': 'text/plain' }).end('z'.repeat(300)); return
    case '/nested': res.writeHead(200, { 'content-type': 'text/html' }).end(NESTED); return
    case '/big.json': res.writeHead(200, { 'content-type': 'application/json' }).end(BIG_JSON); return
    case '/small.json': res.writeHead(200, { 'content-type': 'application/json' }).end(SMALL_JSON); return
    case '/stall': res.writeHead(200, { 'content-type': 'text/plain' }).write('partial'); return
  }
  res.writeHead(404).end()
}

function options (extra: Partial<ExtractOptions> = {}): ExtractOptions {
  return { allow, dispatcher: agent, signal: new AbortController().signal, charLimit: 1000, maxBytes: 4 * MAX_HTML_CHARS, timeoutMs: 5_000, converter, ...extra }
}

before(async () => {
  server = createServer(route)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

after(async () => {
  await agent.destroy()
  await converter.close()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

test('the caller cancelling during the download: a failure that says so, nothing kept', async () => {
  const controller = new AbortController()
  const running = extractPage(`${base}/stall`, options({ signal: controller.signal }))
  setTimeout(() => controller.abort(), 100)
  const result = await running
  assert.deepEqual(result, {
    url: `${base}/stall`, final_url: null, status: null, title: null, content_type: null, content: '', truncated: false, error: 'cancelled before the page was read'
  })
  assert.deepEqual(Object.keys(result), [...RESULT_KEYS, 'error'])
})

test('the page deadline: a failure naming the download deadline', async () => {
  const result = await extractPage(`${base}/stall`, options({ timeoutMs: 100 }))
  assert.equal(result.error, 'timed out after 100 ms (the download deadline)')
  assert.equal(result.status, null)
})

test('a refused connection is described plainly', async () => {
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const port = (closed.address() as AddressInfo).port
  await new Promise((resolve) => closed.close(resolve))
  const result = await extractPage(`http://127.0.0.1:${port}/`, options())
  assert.equal(result.error, 'could not fetch: connection refused')
  assert.equal(result.final_url, null)
})

test('binary content without a Content-Type is refused, the response details kept', async () => {
  const result = await extractPage(`${base}/blob`, options())
  assert.deepEqual(result, {
    url: `${base}/blob`,
    final_url: `${base}/blob`,
    status: 200,
    title: null,
    content_type: null,
    content: '',
    truncated: false,
    error: 'cannot extract content without a Content-Type that is not text: web_extract reads HTML, plain text, markdown and JSON only'
  })
})

test('markup over the processing cap with little text: download_limit, "too large to process whole"', async () => {
  const result = await extractPage(`${base}/heavy`, options())
  assert.equal(result.error, undefined)
  assert.equal(result.title, 'Heavy')
  assert.equal(result.truncated, true)
  assert.equal(result.truncated_reason, 'download_limit')
  assert.match(result.content, /Short visible text\.\n\n\[truncated: the page is too large to process whole; only its beginning was read\]$/)
  assert.deepEqual(Object.keys(result), [...RESULT_KEYS, 'truncated_reason'])
})

test('an error status on a page over char_limit: cut and marked, and the status reported last', async () => {
  const result = await extractPage(`${base}/gone-long`, options({ charLimit: 100 }))
  assert.equal(result.status, 410)
  assert.equal(result.content, `${'z'.repeat(100)}\n\n[truncated at char_limit=100: 200 more characters not shown]`)
  assert.equal(result.truncated_reason, 'char_limit')
  assert.equal(result.error, 'the server answered HTTP 410')
  assert.deepEqual(Object.keys(result), [...RESULT_KEYS, 'truncated_reason', 'error'])
})

test('a page whose conversion runs over the budget: the error says so, the response details kept, the next page converts', async () => {
  const budgeted = new HtmlConverter({ budgetMs: 2_000 })
  try {
    const result = await extractPage(`${base}/nested`, options({ converter: budgeted }))
    assert.deepEqual(result, {
      url: `${base}/nested`,
      final_url: `${base}/nested`,
      status: 200,
      title: null,
      content_type: 'text/html',
      content: '',
      truncated: false,
      error: 'the page took longer than 2000 ms to convert and was given up: its content is too complex (nested thousands of levels deep, say)'
    })
    assert.equal(budgeted.threads, 0, 'its worker was terminated')
    assert.equal((await extractPage(`${base}/heavy`, options({ converter: budgeted }))).title, 'Heavy')
  } finally {
    await budgeted.close()
  }
})

test('a JSON body over INLINE_TEXT_CHARS is formatted in a worker, exactly as inline; a small one stays inline', async () => {
  assert.ok(BIG_JSON.length > INLINE_TEXT_CHARS)
  const fresh = new HtmlConverter()
  try {
    const small = await extractPage(`${base}/small.json`, options({ converter: fresh }))
    assert.equal(small.content, prettyJson(SMALL_JSON))
    assert.equal(fresh.threads, 0, 'no worker for a small body')
    const big = await extractPage(`${base}/big.json`, options({ converter: fresh, charLimit: 1_000_000 }))
    assert.equal(big.error, undefined)
    assert.equal(big.content, prettyJson(BIG_JSON))
    assert.equal(fresh.threads, 1, 'formatted in a worker')
  } finally {
    await fresh.close()
  }
})
