// What an operator does in the console (issue 32), in Debian's chromium against a gateway with real
// tools and a real MCP upstream: runs read_file from its form and reads the result, finds the call in
// Calls, sees a chart change as calls come in, and approves a held call and a held definition, which
// then run and are served.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { axeViolations, openPage } from '../helpers/browser.ts'
import { bearer } from '../helpers/keys.ts'
import { consoleGateway, eventually, GATED, heading, holdLookup, LIMITED, LOOKUP, NOTE, openView, OPERATOR, settled, signInWithKey, toolEntry, unexpected, VIEWS } from './helpers.ts'

const FOLDER = 'console'
const view = (h1: string): typeof VIEWS[number] => VIEWS.find((v) => v.h1 === h1) as typeof VIEWS[number]

/** The aria-labels of the charts on the page, in order. */
async function chartLabels (page: Page): Promise<string[]> {
  return await page.locator('svg[role="img"]').evaluateAll((svgs) => svgs.map((svg: any) => String(svg.getAttribute('aria-label') ?? '')))
}

/** The rows of the first table in main, each as its cells' text. */
async function rows (page: Page): Promise<string[][]> {
  return await page.getByRole('main').locator('table tbody tr').evaluateAll((trs) => trs.map((tr: any) => [...tr.cells].map((cell: any) => String(cell.textContent).trim())))
}

test('read_file run from its form: the result shows ok and the file; the call is in Calls; a chart changes as calls come in', async (t) => {
  const gateway = await consoleGateway(t)
  const { page, problems, failed, screenshot } = await openPage(t, { folder: FOLDER })
  await signInWithKey(page, gateway.base, OPERATOR)

  await page.getByRole('table').getByRole('link', { name: 'read_file', exact: true }).click()
  await heading(page, 'read_file')
  assert.match(page.url(), /#\/tools\/read_file$/)
  await page.getByLabel(/^path\b/).fill('notes.txt')
  await page.getByRole('button', { name: 'Run', exact: true }).click()
  const result = page.getByRole('region', { name: 'Result' })
  await result.getByText(NOTE, { exact: false }).waitFor({ timeout: 10_000 })
  assert.match(await result.innerText(), /\bok\b/)
  assert.deepEqual(await axeViolations(page), [], 'axe-core on the tool page with its result')
  await screenshot('tool-read_file')

  await openView(page, view('Calls'))
  await eventually(async () => (await rows(page)).some((cells) => cells.includes('read_file')), 'the call in Calls', 12_000)
  const call = (await rows(page)).find((cells) => cells.includes('read_file')) as string[]
  assert.ok(call.includes('ok'), `its status: ${call.join(' | ')}`)
  assert.ok(call.includes('operator'), `its caller: ${call.join(' | ')}`)
  // Refresh fetches the latest: a call made elsewhere appears.
  await fetch(`${gateway.base}/dispatch/search_files`, { method: 'POST', headers: { ...bearer(OPERATOR), 'content-type': 'application/json' }, body: JSON.stringify({ pattern: 'milk' }) })
  await page.getByRole('button', { name: 'Refresh', exact: true }).click()
  await eventually(async () => (await rows(page)).some((cells) => cells.includes('search_files')), 'the new call after Refresh', 5_000)
  // Read again every 5 s by itself.
  const shown = (await rows(page)).length
  await fetch(`${gateway.base}/dispatch/read_file`, { method: 'POST', headers: { ...bearer(OPERATOR), 'content-type': 'application/json' }, body: JSON.stringify({ path: 'notes.txt' }) })
  await eventually(async () => (await rows(page)).length > shown, 'the next call shown without Refresh', 12_000)
  assert.deepEqual(await axeViolations(page), [], 'axe-core on Calls with calls in it')
  await screenshot('calls-after-run')

  await openView(page, view('Charts'))
  await settled(page)
  await page.locator('svg[role="img"]').first().waitFor({ timeout: 10_000 })
  const before = await chartLabels(page)
  assert.ok(before.length > 0 && before.every((label) => label !== ''), `each chart has an aria-label: ${JSON.stringify(before)}`)
  for (let i = 0; i < 5; i++) {
    const answer = await fetch(`${gateway.base}/dispatch/read_file`, { method: 'POST', headers: { ...bearer(OPERATOR), 'content-type': 'application/json' }, body: JSON.stringify({ path: 'notes.txt' }) })
    assert.equal(answer.status, 200)
  }
  // Refreshed every 5 s: within two periods the charts say something else.
  await eventually(async () => JSON.stringify(await chartLabels(page)) !== JSON.stringify(before), 'a chart\'s aria-label changed', 12_000)
  assert.match((await chartLabels(page)).join('\n'), /p50 \d/, 'the latency chart says its latest p50')
  // One tool's charts: their labels name it.
  await page.getByLabel('Tool', { exact: true }).selectOption('read_file')
  await eventually(async () => (await chartLabels(page)).every((label) => label.includes('read_file')), 'the charts of read_file', 10_000)
  // The same figures as a table, for those who cannot see the lines: read_file's calls in a slot.
  await page.getByText('Data table', { exact: true }).click()
  const data = page.getByRole('main').locator('.chart-data table tbody tr')
  await data.first().waitFor({ timeout: 10_000 })
  const figures = await data.first().evaluate((tr: any) => [...tr.cells].map((cell: any) => String(cell.textContent).trim()))
  assert.ok(Number(figures[1]) > 0, `calls/s in the newest slot with calls: ${figures.join(' | ')}`)
  assert.deepEqual(await axeViolations(page), [], 'axe-core on Charts with data')
  await screenshot('charts-after-calls')
  assert.deepEqual(problems, [], 'no console error nor CSP violation')
  assert.deepEqual(unexpected(failed), [], 'no request refused or failed')
})

test('a held call and a held definition approved from Approvals and pins: the call runs with its exact arguments, the tool is served again', async (t) => {
  const gateway = await consoleGateway(t)
  await holdLookup(gateway)
  const args = { path: 'approved.txt', content: 'written once a person said yes' }
  const asked = await fetch(`${gateway.base}/dispatch/${GATED}`, {
    method: 'POST', headers: { ...bearer(LIMITED), 'content-type': 'application/json', prefer: 'respond-async' }, body: JSON.stringify(args)
  })
  assert.equal(asked.status, 202)
  const { callId } = await asked.json() as { callId: string }
  const state = await (await fetch(`${gateway.base}/calls/${callId}`, { headers: bearer(LIMITED) })).json() as { status: string }
  assert.equal(state.status, 'pending_approval')

  const { page, problems, failed, screenshot } = await openPage(t, { folder: FOLDER })
  page.on('dialog', (dialog) => { dialog.accept().catch(() => {}) })
  await signInWithKey(page, gateway.base, OPERATOR)
  await openView(page, view('Approvals and pins'))
  const approve = page.getByRole('button', { name: new RegExp(`^Approve ${GATED} call`) })
  await approve.waitFor({ timeout: 10_000 })
  // The exact arguments, as the tool will get them.
  const shown = await page.getByRole('main').locator('pre').allInnerTexts()
  assert.ok(shown.some((text) => text.includes(args.content) && text.includes(args.path)), `the arguments in a <pre>: ${shown.join('\n---\n')}`)
  assert.ok(await page.getByRole('button', { name: new RegExp(`^Deny ${GATED} call`) }).isVisible())
  const approveDefinition = page.getByRole('button', { name: `Approve definition of ${LOOKUP}` })
  await approveDefinition.waitFor({ timeout: 10_000 })
  assert.deepEqual(await axeViolations(page), [], 'axe-core on Approvals and pins with a call and a definition held')
  await screenshot('approvals-pending')

  await approve.click()
  const done = await fetch(`${gateway.base}/calls/${callId}?wait=10`, { headers: bearer(LIMITED) })
  assert.equal(done.status, 200)
  assert.equal((await done.json() as { status: string }).status, 'ok')
  assert.equal(await readFile(join(gateway.workspace, args.path), 'utf8'), args.content)

  await approveDefinition.click()
  await eventually(async () => (await toolEntry(gateway.app, LOOKUP))?.available === true, 'lookup served again once approved')
  await eventually(async () => await approve.count() === 0 && await approveDefinition.count() === 0, 'both gone from the page', 10_000)
  await screenshot('approvals-done')
  assert.deepEqual(problems, [], 'no console error nor CSP violation')
  assert.deepEqual(unexpected(failed), [], 'no request refused or failed')
})

test('a held call denied from Approvals and pins with a reason: it ends blocked, saying why, and never runs', async (t) => {
  const gateway = await consoleGateway(t)
  const args = { path: 'denied.txt', content: 'never written' }
  const asked = await fetch(`${gateway.base}/dispatch/${GATED}`, { method: 'POST', headers: { ...bearer(LIMITED), 'content-type': 'application/json' }, body: JSON.stringify(args) })
  assert.equal(asked.status, 202)
  const { callId } = await asked.json() as { callId: string }

  const { page, problems, failed } = await openPage(t, { folder: FOLDER })
  page.on('dialog', (dialog) => { dialog.accept().catch(() => {}) })
  await signInWithKey(page, gateway.base, OPERATOR)
  await openView(page, view('Approvals and pins'))
  const deny = page.getByRole('button', { name: new RegExp(`^Deny ${GATED} call`) })
  await deny.waitFor({ timeout: 10_000 })
  await page.getByLabel(/^Reason/).fill('not on a Friday')
  await deny.click()
  const done = await fetch(`${gateway.base}/calls/${callId}?wait=10`, { headers: bearer(LIMITED) })
  assert.equal(done.status, 200)
  const envelope = await done.json() as { status: string, content: string }
  assert.equal(envelope.status, 'blocked')
  assert.match(envelope.content, /not on a Friday/)
  await assert.rejects(readFile(join(gateway.workspace, args.path)), { code: 'ENOENT' })
  await eventually(async () => await deny.count() === 0, 'the denied call gone from the page', 10_000)
  assert.deepEqual(problems, [])
  assert.deepEqual(unexpected(failed), [])
})
