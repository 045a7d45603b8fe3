// HtmlConverter: web_extract's HTML → markdown in worker threads. The same result as on the main
// thread; a stop (caller's signal, the page budget, shutdown) terminates the worker mid-page and
// says why; never more threads than asked for.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { ConversionStoppedError, HtmlConverter } from '../../../tools/web/lib/html-pool.ts'
import { htmlToMarkdown } from '../../../tools/web/lib/html.ts'

const ARTICLE = `<!doctype html><html><head><title>The Keeper</title></head><body><nav>MENU</nav>
<article><h1>The Keeper</h1>${'<p>Every evening the keeper climbed the hundred steps to light the lamp. </p>'.repeat(8)}
<p>See <a href="/history">the history</a>.</p></article></body></html>`
// Seconds of parsing in any thread (it grows with the square of the depth): long enough to be stopped halfway.
const NESTED = `<html><body>${'<b>'.repeat(200_000)}deep</body></html>`
const never = new AbortController().signal

/** A worker started and ready, so that the next page starts converting at once. */
async function warm (converter: HtmlConverter): Promise<void> {
  await converter.convert({ html: '<p>warm</p>', pageUrl: 'https://example.org/', charLimit: 100 }, never)
}

test('a page converted in a worker comes back exactly as the main thread converts it', async (t) => {
  const converter = new HtmlConverter()
  t.after(() => converter.close())
  const task = { html: ARTICLE, pageUrl: 'https://example.org/keeper', charLimit: 20_000 }
  assert.deepEqual(await converter.convert(task, never), htmlToMarkdown(task.html, task.pageUrl, task.charLimit))
})

test("the caller's signal terminates the worker mid-conversion, with an error that says so", async (t) => {
  const converter = new HtmlConverter()
  t.after(() => converter.close())
  await warm(converter)
  const controller = new AbortController()
  const started = performance.now()
  const running = converter.convert({ html: NESTED, pageUrl: 'https://example.org/', charLimit: 1000 }, controller.signal)
  await sleep(300)
  assert.equal(converter.threads, 1, 'the conversion runs in a worker')
  controller.abort(new Error('Tool web_extract timed out after 300 ms'))
  await assert.rejects(running, (err: Error) => err instanceof ConversionStoppedError &&
    err.message === 'the conversion of the page was stopped: Tool web_extract timed out after 300 ms')
  assert.ok(performance.now() - started < 3_000, 'stopped at once, not when the page was done')
  assert.equal(converter.threads, 0, 'the worker was terminated')
})

test('a page over the budget is given up alone with a clear error; the next page converts', async (t) => {
  const converter = new HtmlConverter({ budgetMs: 2_000 })
  t.after(() => converter.close())
  await warm(converter)
  await assert.rejects(converter.convert({ html: NESTED, pageUrl: 'https://example.org/', charLimit: 1000 }, never),
    /^ConversionStoppedError: the page took longer than 2000 ms to convert and was given up: its content is too complex/)
  assert.equal(converter.threads, 0, 'the worker was terminated')
  const next = await converter.convert({ html: ARTICLE, pageUrl: 'https://example.org/', charLimit: 20_000 }, never)
  assert.match(next.markdown, /keeper climbed/)
})

test('pages beyond maxThreads wait for a worker instead of starting more', async (t) => {
  const converter = new HtmlConverter({ maxThreads: 1 })
  t.after(() => converter.close())
  const tasks = [1, 2, 3].map((n) => converter.convert({ html: ARTICLE.replace('The Keeper</h1>', `The Keeper ${n}</h1>`), pageUrl: 'https://example.org/', charLimit: 20_000 }, never))
  let most = 0
  const sampling = setInterval(() => { most = Math.max(most, converter.threads) }, 1)
  const results = await Promise.all(tasks)
  clearInterval(sampling)
  assert.deepEqual(results.map((r) => r.article), [true, true, true])
  assert.equal(most, 1)
})

test('close terminates a running conversion and refuses new pages', async () => {
  const converter = new HtmlConverter()
  await warm(converter)
  const running = converter.convert({ html: NESTED, pageUrl: 'https://example.org/', charLimit: 1000 }, never)
  const outcome = running.then(() => 'converted', (err: Error) => err.message)
  await sleep(300)
  await converter.close()
  assert.equal(await outcome, 'the conversion of the page was stopped: the gateway is shutting down')
  assert.equal(converter.threads, 0)
  await assert.rejects(converter.convert({ html: ARTICLE, pageUrl: 'https://example.org/', charLimit: 1000 }, never),
    /the conversion of the page was stopped: the gateway is shutting down/)
})
