// The browser harness of the console's tests checked on a page of its own, so that a console test
// passing means something: axe-core, run under a strict CSP, finds a serious violation where there is
// one and none where there is none; an inline script the CSP refuses is reported; screenshots are kept.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { stat } from 'node:fs/promises'
import { axeViolations, openPage } from '../helpers/browser.ts'

const PAGES: Record<string, string> = {
  '/good': '<!doctype html><html lang="en"><head><title>Good</title></head><body><main><h1>Good</h1><label>Name <input name="n"></label><button>Send</button></main></body></html>',
  '/bad': '<!doctype html><html lang="en"><head><title>Bad</title></head><body><main><h1>Bad</h1><input name="n"><button></button><script>document.title = "ran"</script></main></body></html>'
}

async function servePages (t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const server = createServer((req, res) => {
    if (req.url === '/favicon.ico') return res.writeHead(204).end()
    const body = PAGES[req.url ?? '']
    if (body === undefined) return res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'self'; script-src 'self'" }).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`
}

test('the harness: chromium runs, axe-core finds serious violations under a strict CSP, CSP violations are reported, screenshots kept', async (t) => {
  const base = await servePages(t)
  const { page, problems, screenshot } = await openPage(t, { folder: 'harness' })

  await page.goto(`${base}/good`)
  assert.deepEqual(await axeViolations(page), [])
  assert.deepEqual([...problems], [], 'injecting axe-core is no CSP violation')
  const path = await screenshot('good')
  assert.ok((await stat(path)).size > 1000, 'a real PNG')

  await page.goto(`${base}/bad`)
  const ids = (await axeViolations(page)).map((violation) => violation.id).sort()
  assert.deepEqual(ids, ['button-name', 'label'])
  assert.equal(await page.title(), 'Bad', 'the inline script was refused')
  assert.equal(problems.filter((problem) => problem.startsWith('CSP violation: script-src')).length, 1, problems.join('\n'))
})
