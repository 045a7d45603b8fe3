// The operator console (issue 32) in Debian's chromium: every view renders its heading with no
// serious or critical axe-core violation and nothing refused by its CSP, screenshots of each kept;
// a refused key says so; every control is reached by Tab and has an accessible name; a key limited to
// the toolset `file` sees only its tools and none of the operator's views.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Page } from 'playwright-core'
import { axeViolations, launchBrowser, openPage } from '../helpers/browser.ts'
import { consoleGateway, ECHO, eventually, heading, LIMITED, LOOKUP, NOTE, openView, OPERATOR, settled, signInWithKey, unexpected, VIEWS } from './helpers.ts'

const FOLDER = 'console'

async function noSeriousViolations (page: Page, where: string): Promise<void> {
  const violations = await axeViolations(page)
  assert.deepEqual(violations, [], `axe-core on ${where}: ${JSON.stringify(violations, null, 1)}`)
}

test('each view, signed in with the operator key: its heading, no serious axe-core violation, nothing refused by the CSP; screenshots kept', async (t) => {
  const gateway = await consoleGateway(t)
  const browser = await launchBrowser(t)
  const { page, problems, failed, screenshot } = await openPage(t, { browser, folder: FOLDER })

  await page.goto(`${gateway.base}/console/`)
  await heading(page, 'Sign in')
  await noSeriousViolations(page, 'the sign-in view')
  await screenshot('sign-in')
  await page.getByLabel('API key', { exact: true }).fill('not-a-key-of-this-gateway')
  await page.getByRole('button', { name: 'Use key' }).click()
  await page.getByRole('alert').filter({ hasText: 'The key was refused' }).waitFor({ timeout: 10_000 })
  const refused = unexpected(failed)
  assert.ok(refused.length > 0 && refused.every((line) => line.startsWith('401 ')), `the refused key's answers: ${refused.join(', ')}`)
  failed.length = 0

  await page.getByLabel('API key', { exact: true }).fill(OPERATOR)
  await page.getByRole('button', { name: 'Use key' }).click()
  await heading(page, 'Tools')
  // What the limited key's test must not see is there for the operator.
  for (const tool of ['read_file', 'web_search', 'terminal', ECHO, LOOKUP]) {
    await page.getByRole('table').getByRole('link', { name: tool, exact: true }).waitFor({ timeout: 10_000 })
  }
  for (const view of VIEWS) {
    await openView(page, view)
    assert.match(page.url(), new RegExp(`${view.route}$`))
    if (view.h1 === 'MCP servers') assert.match(await page.getByRole('main').innerText(), /\bup\b\s+http\s+connected/)
    await noSeriousViolations(page, view.h1)
    await screenshot(view.route.slice(2))
  }
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
  assert.deepEqual(problems, [], 'no console error nor CSP violation on any view')
  assert.deepEqual(unexpected(failed), [], 'no request of the operator\'s views refused or failed')

  const phone = await openPage(t, { browser, folder: FOLDER, viewport: { width: 390, height: 844 } })
  await signInWithKey(phone.page, gateway.base, OPERATOR)
  await settled(phone.page)
  await noSeriousViolations(phone.page, 'Tools on a phone')
  await phone.screenshot('tools-phone')
  assert.deepEqual(phone.problems, [])
  assert.deepEqual(unexpected(phone.failed), [])
})

/** What has focus: a description, whether it is in the nav, and its accessible name as computed here. */
async function focused (page: Page): Promise<{ what: string, name: string, inNav: boolean } | undefined> {
  return await page.evaluate(() => {
    const doc = (globalThis as any).document
    const el = doc.activeElement
    if (el === null || el === doc.body) return undefined
    const text = (node: any): string => (node?.textContent ?? '').trim()
    const labelledBy = (el.getAttribute('aria-labelledby') ?? '').split(/\s+/).filter(Boolean).map((id: string) => text(doc.getElementById(id))).join(' ')
    const labels = [...(el.labels ?? [])].map(text).join(' ')
    const own = ['button', 'a', 'summary'].includes(el.localName) ? text(el) : ''
    const value = el.localName === 'input' && ['submit', 'button', 'reset'].includes(el.type) ? el.value : ''
    const name = (el.getAttribute('aria-label') ?? '').trim() || labelledBy.trim() || labels.trim() || own || value || (el.getAttribute('title') ?? '').trim()
    const what = `${el.localName}${el.id ? '#' + String(el.id) : ''}${el.getAttribute('href') ? `[href=${String(el.getAttribute('href'))}]` : ''}`
    return { what, name, inNav: el.closest('nav') !== null }
  })
}

/** Tabs from where focus is until an element comes round again; every element focused on the way. */
async function tabThrough (page: Page, limit = 200): Promise<Array<{ what: string, name: string, inNav: boolean }>> {
  const seen: Array<{ what: string, name: string, inNav: boolean }> = []
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab')
    // Past the last element focus leaves the page (the body is active); the next Tab comes back to the first.
    const again = await page.evaluate(() => {
      const el = (globalThis as any).document.activeElement
      if (el === null || el.localName === 'body') return undefined
      if (el.dataset.tabSeen === '1') return true
      el.dataset.tabSeen = '1'
      return false
    })
    if (again === true) break
    if (again === undefined) continue
    seen.push(await focused(page) as { what: string, name: string, inNav: boolean })
  }
  await page.evaluate(() => { for (const el of (globalThis as any).document.querySelectorAll('[data-tab-seen]')) delete el.dataset.tabSeen })
  return seen
}

test('keyboard: Tab reaches every nav link and each control of each view, and each has an accessible name', async (t) => {
  const gateway = await consoleGateway(t)
  const { page } = await openPage(t, { folder: FOLDER })
  await signInWithKey(page, gateway.base, OPERATOR)
  for (const view of VIEWS) {
    await openView(page, view)
    await settled(page)
    const reached = await tabThrough(page)
    const unnamed = reached.filter((element) => element.name === '')
    assert.deepEqual(unnamed, [], `on ${view.h1}, focusable with no accessible name`)
    const navNames = reached.filter((element) => element.inNav).map((element) => element.name)
    assert.deepEqual(navNames, VIEWS.map((v) => v.link), `on ${view.h1}, the nav links in Tab order`)
    assert.ok(reached.some((element) => element.name === 'Sign out'), `on ${view.h1}, Sign out reached by Tab`)
  }
  // The Tools view's own controls, reached by Tab: the toolset and the filter.
  await openView(page, VIEWS[0])
  const names = (await tabThrough(page)).map((element) => element.name)
  for (const name of ['Toolset', 'Filter']) assert.ok(names.includes(name), `${name} reached by Tab in Tools: ${names.join(', ')}`)
})

/** Presses Tab until the element named `name` has focus (at most `limit` times). */
async function tabTo (page: Page, name: string | RegExp, limit = 100): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab')
    const now = await focused(page)
    if (now !== undefined && (typeof name === 'string' ? now.name === name : name.test(now.name))) return
  }
  throw new Error(`${String(name)} not reached by Tab`)
}

test('keyboard only: from the nav to read_file\'s page, its form filled and run with Enter', async (t) => {
  const gateway = await consoleGateway(t)
  const { page, problems } = await openPage(t, { folder: FOLDER })
  await signInWithKey(page, gateway.base, OPERATOR)
  await openView(page, VIEWS[2])
  await tabTo(page, 'Tools')
  await page.keyboard.press('Enter')
  await heading(page, 'Tools')
  await page.getByRole('table').getByRole('link', { name: 'read_file', exact: true }).waitFor({ timeout: 10_000 })
  await tabTo(page, 'read_file')
  await page.keyboard.press('Enter')
  await heading(page, 'read_file')
  await tabTo(page, /^path\b/)
  await page.keyboard.type('notes.txt')
  await tabTo(page, 'Run')
  await page.keyboard.press('Enter')
  await page.getByRole('region', { name: 'Result' }).getByText(NOTE, { exact: false }).waitFor({ timeout: 10_000 })
  assert.deepEqual(problems, [])
})

test('a key limited to the toolset file sees only the file tools, no operator view, and no MCP server', async (t) => {
  const gateway = await consoleGateway(t)
  const { page, problems, failed, screenshot } = await openPage(t, { folder: FOLDER })
  await signInWithKey(page, gateway.base, LIMITED)
  const nav = page.getByRole('navigation', { name: 'Console' })
  const links = await nav.getByRole('link').allInnerTexts()
  assert.deepEqual(links.map((text) => text.trim()), VIEWS.filter((view) => !view.operator).map((view) => view.link))

  const table = page.getByRole('table')
  await table.getByRole('link', { name: 'read_file', exact: true }).waitFor({ timeout: 10_000 })
  const tools = (await table.getByRole('link').allInnerTexts()).map((text) => text.trim()).sort()
  assert.deepEqual(tools, ['patch', 'read_file', 'search_files', 'write_file'])
  await screenshot('tools-limited')

  await openView(page, VIEWS[1])
  await settled(page)
  const main = await page.getByRole('main').innerText()
  assert.doesNotMatch(main, /\bup\b/, 'the upstream "up" is not shown to a key that cannot use it')
  await screenshot('servers-limited')
  assert.deepEqual(problems, [])
  // Only the operator's routes refuse it (the console asks one to know whether it is an operator).
  assert.deepEqual(unexpected(failed, /^403 GET \/admin\//), [])
  failed.length = 0

  // Typed into the address bar: the operator's views say who may see them, and a tool outside its toolsets is not found.
  for (const route of ['#/calls', '#/approvals']) {
    await page.goto(`${gateway.base}/console/${route}`)
    await page.getByRole('main').getByText(/Only operators see this page/).waitFor({ timeout: 10_000 })
    assert.equal(await page.getByRole('main').locator('table, pre').count(), 0, `nothing of ${route} shown`)
  }
  await page.goto(`${gateway.base}/console/#/tools/terminal`)
  await page.getByRole('main').getByText(/Not Found/).waitFor({ timeout: 10_000 })
  assert.deepEqual(unexpected(failed, /^403 GET \/admin\//), ['404 GET /tools/terminal'])

  // Signed out, the key is forgotten: a reload asks again.
  await page.getByRole('button', { name: 'Sign out', exact: true }).click()
  await heading(page, 'Sign in')
  await page.reload()
  await heading(page, 'Sign in')
})

test('Tools: the Toolset select and the Filter narrow the table; a row leads to the tool\'s page', async (t) => {
  const gateway = await consoleGateway(t)
  const { page, problems } = await openPage(t, { folder: FOLDER })
  await signInWithKey(page, gateway.base, OPERATOR)
  const table = page.getByRole('table')
  const links = async (): Promise<string[]> => (await table.getByRole('link').allInnerTexts()).map((text) => text.trim()).sort()
  await table.getByRole('link', { name: ECHO, exact: true }).waitFor({ timeout: 10_000 })
  assert.ok(await table.locator('caption').count() === 1 && (await table.locator('caption').innerText()).trim() !== '', 'the table has a caption')

  await page.getByLabel('Toolset', { exact: true }).selectOption('mcp-up')
  await eventually(async () => JSON.stringify(await links()) === JSON.stringify([ECHO, LOOKUP]), 'the toolset mcp-up alone', 5_000)
  await page.getByLabel('Filter', { exact: true }).fill('echo')
  await eventually(async () => JSON.stringify(await links()) === JSON.stringify([ECHO]), 'the filter on echo', 5_000)
  await table.getByRole('link', { name: ECHO, exact: true }).click()
  await heading(page, ECHO)
  assert.match(page.url(), new RegExp(`#/tools/${ECHO}$`))
  await page.getByLabel(/^text\b/).fill('said back')
  await page.getByRole('button', { name: 'Run', exact: true }).click()
  const result = page.getByRole('region', { name: 'Result' })
  await result.getByText('said back').waitFor({ timeout: 10_000 })
  assert.match(await result.innerText(), /\bok\b/, 'the MCP upstream\'s tool run from its form')
  assert.deepEqual(problems, [])
})

test('an open gateway (no key, no sign-in): the console opens on Tools with no sign-in and no Sign out', async (t) => {
  const gateway = await consoleGateway(t, { open: true })
  const { page, problems, failed } = await openPage(t, { folder: FOLDER })
  await page.goto(`${gateway.base}/console/`)
  await heading(page, 'Tools')
  await settled(page)
  await page.getByRole('table').getByRole('link', { name: ECHO, exact: true }).waitFor({ timeout: 10_000 })
  assert.equal(await page.getByRole('button', { name: 'Sign out' }).isVisible(), false)
  assert.deepEqual(problems, [])
  assert.deepEqual(unexpected(failed), [])
})
