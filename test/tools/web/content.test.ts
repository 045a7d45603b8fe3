// Content handling of web_extract without a network: media types, charsets, JSON, cutting, HTML → markdown.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { cutAt, decodeBody, kindOf, parseMediaType, prettyJson } from '../../../tools/web/lib/content.ts'
import { htmlToMarkdown, MAX_DEPTH, MAX_HTML_CHARS, stripHeavy } from '../../../tools/web/lib/html.ts'

test('parseMediaType and kindOf: the types web_extract reads, and the ones it refuses', () => {
  const kinds: Array<[string | null, string]> = [
    ['text/html; charset=UTF-8', 'html'],
    ['application/xhtml+xml', 'html'],
    ['Application/JSON', 'json'],
    ['application/ld+json; charset=utf-8', 'json'],
    ['application/problem+json', 'json'],
    ['text/plain', 'text'],
    ['text/markdown; charset=utf-8', 'text'],
    ['image/png', 'unsupported'],
    ['application/pdf', 'unsupported'],
    ['application/octet-stream', 'unsupported'],
    ['application/jsonp', 'unsupported']
  ]
  for (const [header, kind] of kinds) assert.equal(kindOf(parseMediaType(header), Buffer.from('x')), kind, String(header))
  assert.deepEqual(parseMediaType('text/html; Charset="ISO-8859-1"'), { essence: 'text/html', charset: 'ISO-8859-1' })
  assert.equal(kindOf(parseMediaType(null), Buffer.from('  <!DOCTYPE html><p>x')), 'html', 'missing type: sniffed')
  assert.equal(kindOf(parseMediaType(null), Buffer.from('just words')), 'text')
  assert.equal(kindOf(parseMediaType(null), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0])), 'unsupported')
})

test('decodeBody: declared charset, meta charset, unknown label falls back to UTF-8', () => {
  const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9]) // "café" in ISO-8859-1
  assert.equal(decodeBody(latin1, parseMediaType('text/plain; charset=iso-8859-1'), 'text', false), 'café')
  const meta = Buffer.concat([Buffer.from('<html><head><meta charset="windows-1252"></head><body>'), Buffer.from([0x80]), Buffer.from('</body></html>')])
  assert.match(decodeBody(meta, parseMediaType('text/html'), 'html', false), /<body>€</)
  // WHATWG reads the iso-8859-1 label as windows-1252: 0x93/0x94 are curly quotes, not C1 controls.
  assert.equal(decodeBody(Buffer.from([0x93, 0x68, 0x69, 0x94]), parseMediaType('text/plain; charset=ISO-8859-1'), 'text', false), '“hi”')
  assert.equal(decodeBody(Buffer.from('café'), parseMediaType('text/plain; charset=no-such-charset'), 'text', false), 'café')
  // A download cut inside a multi-byte character drops the partial character instead of showing U+FFFD.
  const cut = Buffer.from('abc€').subarray(0, 5)
  assert.equal(decodeBody(cut, parseMediaType('text/plain'), 'text', true), 'abc')
})

test('prettyJson and cutAt', () => {
  assert.equal(prettyJson('{"a":[1,2],"b":"é"}'), '{\n  "a": [\n    1,\n    2\n  ],\n  "b": "é"\n}')
  assert.equal(prettyJson('{broken'), '{broken')
  assert.equal(cutAt('hello', 10), 'hello')
  assert.equal(cutAt('hello', 3), 'hel')
  const emoji = 'ab😀cd'
  assert.equal(cutAt(emoji, 3), 'ab', 'never half a surrogate pair')
  assert.equal(cutAt(emoji, 4), 'ab😀')
})

const ARTICLE = `<!doctype html><html><head><title>Otters | Nature Site</title><base href="/wiki/"></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a> NAVIGATION-NOISE</nav>
<article><h1>Sea otters</h1>
<p>${'Sea otters hold hands while they sleep so that they do not drift apart. '.repeat(12)}</p>
<p>Read <a href="Kelp">about kelp</a> or <a href="https://example.org/abs">an absolute link</a>.</p>
<p><img src="otter.jpg" alt="an otter"> <img src="data:image/png;base64,${'A'.repeat(5000)}" alt="inline pixel"></p>
<pre><code>otters.count()</code></pre>
<ul><li>playful</li><li>clever</li></ul>
<script>document.write('SCRIPT-NOISE')</script></article>
<footer>FOOTER-NOISE</footer></body></html>`

test('htmlToMarkdown: the main article as markdown, links absolute, noise and inline data dropped', () => {
  const out = htmlToMarkdown(ARTICLE, 'https://nature.example/animals/otters', 20_000)
  assert.equal(out.article, true)
  assert.equal(out.pruned, false)
  assert.equal(out.capped, false)
  assert.match(out.title ?? '', /Otters/)
  assert.match(out.markdown, /Sea otters hold hands/)
  assert.match(out.markdown, /\[about kelp\]\(https:\/\/nature\.example\/wiki\/Kelp\)/, '<base href> honoured')
  assert.match(out.markdown, /\[an absolute link\]\(https:\/\/example\.org\/abs\)/)
  assert.match(out.markdown, /!\[an otter\]\(https:\/\/nature\.example\/wiki\/otter\.jpg\)/)
  assert.match(out.markdown, /\[image: inline pixel\]/)
  assert.doesNotMatch(out.markdown, /AAAAAAAA/)
  assert.match(out.markdown, /```\notters\.count\(\)\n```/)
  assert.match(out.markdown, /- +playful/)
  for (const noise of ['NAVIGATION-NOISE', 'FOOTER-NOISE', 'SCRIPT-NOISE', '<p>']) assert.doesNotMatch(out.markdown, new RegExp(noise))
})

test('htmlToMarkdown: a page without an article falls back to its whole body', () => {
  const out = htmlToMarkdown('<html><head><title>Tiny</title><style>.x{}</style></head><body><h2>Menu</h2><a href="/a">A</a><script>var s = 1</script></body></html>', 'http://site.example/', 20_000)
  assert.equal(out.title, 'Tiny')
  assert.match(out.markdown, /## Menu/)
  assert.match(out.markdown, /\[A\]\(http:\/\/site\.example\/a\)/)
  assert.doesNotMatch(out.markdown, /var s|\.x\{\}/)
})

test('stripHeavy: scripts, styles, SVG and comments go before parsing, in one pass; an unclosed one swallows the rest', () => {
  const html = '<p>a</p><SCRIPT type="x">if (a < b) alert("</p>")</script ><p>b</p><!-- <p>hidden</p> --><style>p{}</style><svg><g/></svg><p>c</p><scripted>d</scripted>'
  assert.equal(stripHeavy(html), '<p>a</p><p>b</p><p>c</p><scripted>d</scripted>')
  assert.equal(stripHeavy('<p>kept</p><script>never closed <p>lost</p>'), '<p>kept</p>')
  assert.equal(stripHeavy('<p>kept</p><!-- unterminated'), '<p>kept</p>')
  // Many unclosed openers must not turn quadratic.
  const hostile = '<script>'.repeat(200_000)
  const started = performance.now()
  assert.equal(stripHeavy(`<p>x</p>${hostile}`), '<p>x</p>')
  assert.ok(performance.now() - started < 1_000)
})

const PARAGRAPH = '<p>Sea otters hold hands while they sleep so that they do not drift apart, and they keep tools in skin pockets.</p>\n'

test('htmlToMarkdown: only about char_limit of a long article is converted, and the result says so', () => {
  const html = `<html><head><title>Long</title></head><body><article>${PARAGRAPH.repeat(5_000)}</article></body></html>`
  const out = htmlToMarkdown(html, 'http://x.example/', 2_000)
  assert.equal(out.pruned, true)
  assert.ok(out.markdown.length >= 2_000, `markdown has ${out.markdown.length} characters`)
  assert.ok(out.markdown.length < 4_000, `markdown has ${out.markdown.length} characters`)
  const short = htmlToMarkdown(`<html><body><article>${PARAGRAPH.repeat(20)}</article></body></html>`, 'http://x.example/', 20_000)
  assert.equal(short.pruned, false)
})

test('htmlToMarkdown: CPU work stays bounded: scripts stripped, markup capped, Readability skipped when too costly', () => {
  const scripts = `<script>${'var x = 1;'.repeat(100_000)}</script>`.repeat(4)
  let started = performance.now()
  const out = htmlToMarkdown(`<html><head><title>S</title>${scripts}</head><body><article>${PARAGRAPH.repeat(30)}</article></body></html>`, 'http://x.example/', 20_000)
  assert.ok(performance.now() - started < 3_000)
  assert.equal(out.capped, false, '4 MB of scripts are stripped, not counted')
  assert.equal(out.article, true)
  assert.match(out.markdown, /Sea otters hold hands/)

  const huge = `<html><body><div>${'<b>word</b> '.repeat(MAX_HTML_CHARS / 10)}</div></body></html>`
  assert.equal(htmlToMarkdown(huge, 'http://x.example/', 100).capped, true)

  // 20 000 paragraphs 60 levels deep took Readability 4 s; now the body is converted directly.
  const deep = `<html><body>${'<div>'.repeat(60)}${'<p>para text words words.</p>'.repeat(20_000)}${'</div>'.repeat(60)}</body></html>`
  started = performance.now()
  const fallback = htmlToMarkdown(deep, 'http://x.example/', 1_000)
  assert.ok(performance.now() - started < 3_000, `took ${performance.now() - started} ms`)
  assert.equal(fallback.article, false)
  assert.equal(fallback.pruned, true)
  assert.match(fallback.markdown, /^para text words words\./)
})

test('htmlToMarkdown: a page nested deeper than MAX_DEPTH is refused with an error that says so, one just within converts', () => {
  const nested = (levels: number): string => `<html><body>${'<div>'.repeat(levels)}deep${'</div>'.repeat(levels)}</body></html>`
  // <html> and <body> are two of the levels.
  assert.throws(() => htmlToMarkdown(nested(MAX_DEPTH - 1), 'http://x.example/', 1_000),
    { message: `the page nests its elements more than ${MAX_DEPTH} levels deep, too deep to convert` })
  assert.equal(htmlToMarkdown(nested(MAX_DEPTH - 2), 'http://x.example/', 1_000).markdown, 'deep')
})
