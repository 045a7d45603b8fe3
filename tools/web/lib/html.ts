// HTML → markdown for web_extract. Three well-kept libraries, each for one step:
// - @mozilla/readability finds the main article of a page and drops navigation, ads and footers,
//   the same algorithm as Firefox Reader View;
// - linkedom gives Readability the DOM it needs in Node, without jsdom's weight (no layout, no
//   resources, no script execution: scripts in a fetched page never run);
// - turndown turns the resulting HTML into markdown, which keeps headings, lists, links and code
//   blocks in a form a model reads well at a fraction of the tokens of HTML.
// When Readability finds no article (a home page, a short page), the whole body is converted.
// All of this is synchronous CPU work (Readability alone takes seconds on a few MB of dense markup).
// web_extract runs it in a worker thread (html-pool.ts), so that it blocks no other call; it is also
// bounded: scripts, styles and the like are cut out as text first, the markup is capped, a page
// nested deeper than MAX_DEPTH is refused, Readability is skipped on pages too big or too deep for
// it, and only as much of the article as char_limit can show is converted.
import { Readability } from '@mozilla/readability'
import { parseHTML } from 'linkedom'
import TurndownService from 'turndown'

export interface HtmlExtract {
  title: string | null
  markdown: string
  /** False when Readability found no article and the whole body was converted. */
  article: boolean
  /** Content was left out because it would not fit in the text budget (char_limit). */
  pruned: boolean
  /** The markup was longer than MAX_HTML_CHARS (after removing scripts and styles) and was cut. */
  capped: boolean
}

/** Markup handed to the DOM parser at most, once scripts, styles and the like are gone. */
export const MAX_HTML_CHARS = 1_000_000
/**
 * Readability's time grows with the number of elements times their depth (measured: about 1 s at
 * 300 000, 4 s at 1.2 million, 12 s for 1 000 nested divs); above this the body is converted instead.
 */
export const MAX_READABILITY_COST = 300_000

/**
 * Deepest element nesting converted. Real pages stay within a few dozen levels; the conversion
 * recurses per level (deep enough, it overflows the stack) and time grows with depth times size.
 */
export const MAX_DEPTH = 1_000

const HEAVY = ['script', 'style', 'noscript', 'template', 'svg', 'iframe', 'object', 'canvas'] as const

function createTurndown (): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' })
  service.remove([...HEAVY, 'embed'])
  // Inline images as data: URIs can be megabytes of base64 that tell a model nothing.
  service.addRule('dataImages', {
    filter: (node) => node.nodeName === 'IMG' && (node.getAttribute('src') ?? '').trim().toLowerCase().startsWith('data:'),
    replacement: (_content, node) => {
      const alt = (node as { getAttribute: (name: string) => string | null }).getAttribute('alt')?.trim()
      return alt ? `[image: ${alt}]` : ''
    }
  })
  return service
}

const turndown = createTurndown()

/**
 * Removes scripts, styles, inline SVG and comments as text, before any parsing: they are often
 * most of a page's bytes and carry nothing to read. One linear pass; an element left unclosed
 * swallows the rest of the page, as it would in a browser.
 */
export function stripHeavy (html: string): string {
  const opener = new RegExp(`<!--|<(${HEAVY.join('|')})(?=[\\s/>])`, 'gi')
  const parts: string[] = []
  let from = 0
  for (let match = opener.exec(html); match !== null; match = opener.exec(html)) {
    parts.push(html.slice(from, match.index))
    const closer = match[1] === undefined ? /-->/g : new RegExp(`</${match[1]}\\s*>`, 'gi')
    closer.lastIndex = opener.lastIndex
    const end = closer.exec(html)
    if (end === null) return parts.join('')
    from = end.index + end[0].length
    opener.lastIndex = from
  }
  parts.push(html.slice(from))
  return parts.join('')
}

type LinkedDocument = ReturnType<typeof parseHTML>['document']

interface DomNode {
  childNodes: ArrayLike<DomNode>
  textContent: string | null
  removeChild: (child: DomNode) => unknown
}

/**
 * Makes link and image addresses absolute against the page URL (or its <base href>), so that the
 * markdown's links work outside the page; linkedom has no baseURI for Readability to do it.
 */
function absolutise (document: LinkedDocument, pageUrl: string): void {
  let base: URL
  try {
    base = new URL(document.querySelector('base[href]')?.getAttribute('href') ?? '', pageUrl)
  } catch {
    return
  }
  for (const [selector, attribute] of [['a[href]', 'href'], ['img[src]', 'src']] as const) {
    for (const element of document.querySelectorAll(selector)) {
      const value = element.getAttribute(attribute)
      if (value === null || value.startsWith('#') || /^(data|javascript|mailto):/i.test(value.trim())) continue
      try {
        element.setAttribute(attribute, new URL(value, base).href)
      } catch {}
    }
  }
}

/** Length of the text as markdown will show it: runs of white space count as one. */
function visibleLength (text: string | null): number {
  return text === null ? 0 : text.replace(/\s+/g, ' ').length
}

/** Drops the content after the first `budget` visible characters; returns the budget left (≤ 0 when pruned). */
function prune (node: DomNode, budget: number): number {
  for (const child of Array.from(node.childNodes)) {
    if (budget <= 0) {
      node.removeChild(child)
      continue
    }
    const length = visibleLength(child.textContent)
    if (length <= budget) budget -= length
    else if (child.childNodes.length > 0) budget = prune(child, budget)
    else budget = 0
  }
  return budget
}

/**
 * The sum of every element's depth, in one pass (document order visits parents first). Readability's
 * own maxElemsToParse cannot serve: linkedom's getElementsByTagName('*') finds nothing. Throws on a
 * page nested deeper than MAX_DEPTH, before anything recurses through it.
 */
function readabilityCost (document: LinkedDocument): number {
  const depths = new Map<unknown, number>()
  let total = 0
  for (const element of document.querySelectorAll('*')) {
    const depth = (depths.get(element.parentNode) ?? 0) + 1
    if (depth > MAX_DEPTH) throw new Error(`the page nests its elements more than ${MAX_DEPTH} levels deep, too deep to convert`)
    depths.set(element, depth)
    total += depth
  }
  return total
}

function tidyMarkdown (markdown: string): string {
  return markdown.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim()
}

function parse (html: string, pageUrl: string): LinkedDocument {
  const { document } = parseHTML(html)
  absolutise(document, pageUrl)
  return document
}

function convert (node: DomNode, charLimit: number): { markdown: string, pruned: boolean } {
  // A little more than char_limit, so that the markdown still fills char_limit after white space folds.
  const budget = charLimit + 1_000
  const pruned = visibleLength(node.textContent) > budget && prune(node, budget) <= 0
  return { markdown: tidyMarkdown(turndown.turndown(node as unknown as TurndownService.Node)), pruned }
}

/** Extracts the main content of an HTML page as markdown, with its title; converts about `charLimit` characters of it. */
export function htmlToMarkdown (html: string, pageUrl: string, charLimit: number): HtmlExtract {
  let markup = stripHeavy(html)
  const capped = markup.length > MAX_HTML_CHARS
  if (capped) markup = markup.slice(0, MAX_HTML_CHARS)
  const document = parse(markup, pageUrl)
  const pageTitle = document.title?.trim() || null
  const readable = readabilityCost(document) <= MAX_READABILITY_COST
  if (readable) {
    let article: ReturnType<Readability<DomNode>['parse']> = null
    try {
      // The serializer hands back the article's node itself, which saves a serialise + reparse round.
      article = new Readability<DomNode>(document as unknown as ConstructorParameters<typeof Readability>[0], {
        serializer: (node) => node as unknown as DomNode
      }).parse()
    } catch {
      article = null
    }
    if (article?.content && (article.textContent ?? '').trim() !== '') {
      const { markdown, pruned } = convert(article.content, charLimit)
      if (markdown !== '') return { title: article.title?.trim() || pageTitle, markdown, article: true, pruned, capped }
    }
  }
  // Readability changes the document it reads: the fallback starts from a fresh one when it ran.
  const source = readable ? parse(markup, pageUrl) : document
  const body = source.body as unknown as DomNode | null
  const { markdown, pruned } = body ? convert(body, charLimit) : { markdown: '', pruned: false }
  return { title: pageTitle, markdown, article: false, pruned, capped }
}
