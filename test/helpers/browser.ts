// A real browser for the console's tests (issue 32): Debian's chromium (installed with apt-get when
// missing) driven headless by playwright-core, a page per test, axe-core run inside it, screenshots
// kept as test artifacts (test-artifacts/<folder>/<name>.png at the repository's root, or under
// TEST_ARTIFACTS_DIR), and whatever the page reported as an error or a CSP violation, to assert none.
import { mkdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { ensureDebianCommand } from './debian-package.ts'

export type { Browser, BrowserContext, Page }

export const CHROMIUM = '/usr/bin/chromium'
const ROOT = resolve(import.meta.dirname, '..', '..')
const require = createRequire(import.meta.url)

interface TestContext { after: (fn: () => Promise<void> | void) => void }

export interface AxeViolation {
  id: string
  impact: string
  help: string
  /** The first few offending nodes' selectors and summaries. */
  nodes: Array<{ target: unknown, failureSummary?: string }>
}

export interface BrowserPage {
  browser: Browser
  context: BrowserContext
  page: Page
  /** Console errors, uncaught page errors and securitypolicyviolation events, in order. */
  problems: string[]
  /**
   * Answers of status 400 or more the page received (`<status> <method> <path>`), in order: the
   * browser logs each as a console error, which `problems` leaves out, so that a test can tell an
   * expected refusal (a limited key's 403) from a page that asks for what is not there.
   */
  failed: string[]
  /** Saves a full-page PNG named `name` in the artifacts folder; returns its path. */
  screenshot: (name: string) => Promise<string>
}

/** Where screenshots go: TEST_ARTIFACTS_DIR/<folder>, else test-artifacts/<folder> at the repository's root. */
export function artifactsDir (folder: string): string {
  return join(process.env.TEST_ARTIFACTS_DIR ?? join(ROOT, 'test-artifacts'), folder)
}

/** Makes sure Debian's chromium is there (apt-get install chromium when missing, which takes a minute). */
export function ensureChromium (): void {
  ensureDebianCommand(CHROMIUM, ['--version'], 'chromium')
}

/** Launches headless chromium (no sandbox as root, which chromium refuses otherwise); closed after the test. */
export async function launchBrowser (t: TestContext): Promise<Browser> {
  ensureChromium()
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : []
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args })
  t.after(() => browser.close())
  return browser
}

/** Records what the page reports as wrong: console errors, uncaught errors, CSP violations. */
async function watchProblems (context: BrowserContext, page: Page, problems: string[], failed: string[]): Promise<void> {
  await context.exposeBinding('__reportProblem', (_source, text: string) => { problems.push(text) })
  // A string: the page's DOM types are not this project's (no "dom" lib).
  await context.addInitScript(`document.addEventListener('securitypolicyviolation', (event) => {
    globalThis.__reportProblem('CSP violation: ' + event.violatedDirective + ' blocked ' + (event.blockedURI || 'inline') + ' (' + event.sourceFile + ':' + event.lineNumber + ')')
  })`)
  page.on('console', (message) => {
    if (message.type() !== 'error' || message.text().startsWith('Failed to load resource:')) return
    problems.push(`console error: ${message.text()} (${message.location().url})`)
  })
  page.on('response', (response) => {
    if (response.status() < 400) return
    const url = new URL(response.url())
    failed.push(`${response.status()} ${response.request().method()} ${url.pathname}${url.search}`)
  })
  page.on('pageerror', (error) => { problems.push(`page error: ${error.message}`) })
}

/**
 * A new page in its own context (fresh storage) of `browser`, or of a browser launched for this test;
 * `folder` names the artifacts folder its screenshots go to.
 */
export async function openPage (t: TestContext, options: { browser?: Browser, folder?: string, viewport?: { width: number, height: number } } = {}): Promise<BrowserPage> {
  const browser = options.browser ?? await launchBrowser(t)
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 900 } })
  t.after(() => context.close())
  const page = await context.newPage()
  const problems: string[] = []
  const failed: string[] = []
  await watchProblems(context, page, problems, failed)
  const dir = artifactsDir(options.folder ?? 'browser')
  const screenshot = async (name: string): Promise<string> => {
    await mkdir(dir, { recursive: true })
    const path = join(dir, `${name}.png`)
    await page.screenshot({ path, fullPage: true })
    return path
  }
  return { browser, context, page, problems, failed, screenshot }
}

let axeSource: Promise<string> | undefined

/** axe-core's script, read once from node_modules. */
async function axeScript (): Promise<string> {
  axeSource ??= readFile(require.resolve('axe-core/axe.min.js'), 'utf8')
  return await axeSource
}

/** Runs axe-core on the page as it is now; the violations of impact serious or critical. */
export async function axeViolations (page: Page): Promise<AxeViolation[]> {
  const injected = await page.evaluate(() => typeof (globalThis as unknown as { axe?: unknown }).axe === 'object')
  // Evaluated over the DevTools protocol, which the page's CSP does not govern (a <script> tag added
  // to the page would be refused by a strict script-src, and reported as a violation).
  if (!injected) await page.evaluate(await axeScript())
  const violations = await page.evaluate(async () => {
    const page = globalThis as unknown as { axe: { run: (context: unknown) => Promise<{ violations: any[] }> }, document: unknown }
    const result = await page.axe.run(page.document)
    return result.violations.map((v) => ({
      id: v.id as string,
      impact: v.impact as string,
      help: v.help as string,
      nodes: (v.nodes as any[]).slice(0, 5).map((node) => ({ target: node.target, failureSummary: node.failureSummary as string | undefined }))
    }))
  })
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
}
