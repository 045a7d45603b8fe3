// The documentation's links hold (issue 28): every relative link and #anchor of README.md, docs/ and
// bench/README.md names a file that exists and, in a markdown page, a heading it has (slugged as
// GitHub slugs them); every page of docs/ is linked from the README. A broken link is named with
// its page and line, so the fix is where the test points.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { posix } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** What the check reads besides the pages it checks: paths are relative to the repository root. */
interface Repository {
  exists: (path: string) => boolean
  read: (path: string) => string | undefined
}

interface Link {
  line: number
  target: string
}

/** The lines of a page, those of fenced code blocks (fences included) blanked. */
function outsideFences (markdown: string): string[] {
  let fence: string | undefined
  return markdown.split('\n').map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence === undefined) {
      if (marker === undefined) return line
      fence = marker
      return ''
    }
    // A closing fence: the same character, at least as long, and nothing after it.
    if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined
    return ''
  })
}

/** The text with code blanked (fenced blocks and inline code spans), newlines kept for line numbers. */
function withoutCode (markdown: string): string {
  // A code span may run over a line break; it is blanked but for its newlines.
  return outsideFences(markdown).join('\n').replace(/(`+)[\s\S]*?\1/g, (span) => span.replace(/[^\n]/g, ' '))
}

/** The anchor GitHub gives a heading: its text lower-cased, punctuation dropped, spaces as hyphens. */
function slugOf (heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '')
  return text.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-')
}

/** Every anchor a page offers: its headings' slugs (the second of a name gets -1, ...) and HTML ids. */
function anchorsOf (markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of outsideFences(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1]
    if (heading !== undefined) {
      const slug = slugOf(heading)
      const count = seen.get(slug) ?? 0
      seen.set(slug, count + 1)
      anchors.add(count === 0 ? slug : `${slug}-${count}`)
    }
    for (const match of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(match[1])
  }
  return anchors
}

/** The inline links and images, and the reference definitions, of a page, outside code. */
function linksOf (markdown: string): Link[] {
  const text = withoutCode(markdown)
  const lineAt = (index: number): number => text.slice(0, index).split('\n').length
  const links: Link[] = []
  const inline = /!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g
  for (const match of text.matchAll(inline)) links.push({ line: lineAt(match.index), target: match[1] })
  for (const match of text.matchAll(/^ {0,3}\[[^\]]+\]:\s*(\S+)/gm)) links.push({ line: lineAt(match.index), target: match[1] })
  return links
}

/** Why `link` of the page `page` does not resolve, or undefined when it does. */
function whyBroken (page: string, link: Link, repo: Repository, anchorsCache: Map<string, Set<string>>): string | undefined {
  const target = link.target.replace(/^<(.*)>$/, '$1')
  // Other sites are not checked: only what the repository holds.
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined
  const hash = target.indexOf('#')
  const pathPart = decodeURI(hash === -1 ? target : target.slice(0, hash))
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1))
  const resolved = pathPart === ''
    ? page
    : posix.normalize(pathPart.startsWith('/') ? pathPart.slice(1) : posix.join(posix.dirname(page), pathPart)).replace(/\/$/, '')
  if (resolved === '..' || resolved.startsWith('../')) return `${target}: leads outside the repository`
  if (resolved !== '.' && !repo.exists(resolved)) return `${target}: no file or folder ${resolved}`
  // Anchors are checked in markdown pages only (a source file's #L10 is GitHub's business).
  if (anchor === undefined || !resolved.endsWith('.md')) return undefined
  let anchors = anchorsCache.get(resolved)
  if (anchors === undefined) {
    anchors = anchorsOf(repo.read(resolved) ?? '')
    anchorsCache.set(resolved, anchors)
  }
  return anchors.has(anchor) ? undefined : `${target}: no heading #${anchor} in ${resolved}`
}

/** Every link of `pages` (path → markdown) that does not resolve, as `page:line: target: why`. */
function brokenLinks (pages: ReadonlyMap<string, string>, repo: Repository): string[] {
  const anchorsCache = new Map<string, Set<string>>()
  const readPage: Repository = { exists: (path) => pages.has(path) || repo.exists(path), read: (path) => pages.get(path) ?? repo.read(path) }
  const broken: string[] = []
  for (const [page, markdown] of pages) {
    for (const link of linksOf(markdown)) {
      const why = whyBroken(page, link, readPage, anchorsCache)
      if (why !== undefined) broken.push(`${page}:${link.line}: ${why}`)
    }
  }
  return broken
}

/** The repository on disk. */
const disk: Repository = {
  exists: (path) => existsSync(posix.join(ROOT, path)),
  read: (path) => existsSync(posix.join(ROOT, path)) ? readFileSync(posix.join(ROOT, path), 'utf8') : undefined
}

/** The pages the check covers: README.md, every markdown page under docs/, bench/README.md. */
function documentation (): Map<string, string> {
  const docs = readdirSync(posix.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => posix.join('docs', name.split('\\').join('/')))
    .sort()
  return new Map(['README.md', ...docs, 'bench/README.md'].map((path) => [path, readFileSync(posix.join(ROOT, path), 'utf8')]))
}

test('every relative link and #anchor of README.md, docs/ and bench/README.md resolves', () => {
  const pages = documentation()
  assert.ok(pages.size >= 10, `the pages were read (${[...pages.keys()].join(', ')})`)
  const broken = brokenLinks(pages, disk)
  assert.deepEqual(broken, [], `broken links:\n${broken.join('\n')}`)
})

test('every page of docs/ and bench/README.md is linked from the README', () => {
  const pages = documentation()
  const readme = pages.get('README.md') ?? ''
  const linked = new Set(linksOf(readme).map((link) => posix.normalize(link.target.replace(/#.*$/, ''))))
  const unlinked = [...pages.keys()].filter((page) => page !== 'README.md' && !linked.has(page))
  assert.deepEqual(unlinked, [], `pages the README does not link: ${unlinked.join(', ')}`)
})

test('the README stays a front door: the set-up commands first, at most ~300 lines', () => {
  const readme = readFileSync(posix.join(ROOT, 'README.md'), 'utf8')
  // .ci/run and CI run the README's test command; `npm start` is the first thing a reader runs.
  const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? ''
  assert.match(firstBlock, /^npm ci && npm start\b/m)
  assert.match(firstBlock, /^npm ci && npm test\b/m)
  const lines = readme.split('\n').length
  assert.ok(lines <= 320, `README.md has ${lines} lines; the manual belongs in docs/`)
})

test('headings get the anchors GitHub gives them', () => {
  const page = [
    '# Retrying safely: Idempotency-Key',
    '## Definitions in each provider\'s format, and strict mode',
    '### `read_result` and GET /results/:id',
    '## claude.ai, Claude Desktop and ChatGPT connectors',
    '## Notes',
    '## Notes',
    '```md',
    '# Not a heading',
    '```',
    '<a id="custom-anchor"></a>'
  ].join('\n')
  assert.deepEqual([...anchorsOf(page)].sort(), [
    'claudeai-claude-desktop-and-chatgpt-connectors',
    'custom-anchor',
    'definitions-in-each-providers-format-and-strict-mode',
    'notes',
    'notes-1',
    'read_result-and-get-resultsid',
    'retrying-safely-idempotency-key'
  ])
})

test('the check can fail: a missing file and a missing heading are named, links in code are not links', () => {
  const pages = new Map([
    ['README.md', [
      '# Top',
      'See [the guide](docs/guide.md#real-heading), [a section](#top) and [the site](https://example.com).',
      'A [missing page](docs/missing.md) and [a missing',
      'heading](docs/guide.md#no-such-heading).',
      'Not links: `[in a span](nowhere.md)` and',
      '```md',
      '[in a block](nowhere.md)',
      '```',
      '[outside](../elsewhere.md)'
    ].join('\n')]
  ])
  const files = new Map([['docs/guide.md', '# Guide\n\n## Real heading\n']])
  const repo: Repository = { exists: (path) => files.has(path), read: (path) => files.get(path) }
  assert.deepEqual(brokenLinks(pages, repo), [
    'README.md:3: docs/missing.md: no file or folder docs/missing.md',
    'README.md:3: docs/guide.md#no-such-heading: no heading #no-such-heading in docs/guide.md',
    'README.md:9: ../elsewhere.md: leads outside the repository'
  ])
})
