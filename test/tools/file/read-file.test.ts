// read_file: numbered pages, offset/limit, the character budget ending at a whole line with
// next_offset, totals, binary and folder refusals, and the workspace root created on first use.
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { mkdtemp, rm, stat, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileFixture, withLimits } from './setup.ts'

const numbered = (lines: string[], from = 1): string => lines.map((line, i) => `${from + i}|${line}`).join('\n')

test('read_file shows numbered lines with the total and size', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'src/app.ts': 'const a = 1\n\nexport { a }\n' })
  const result = await fx.json('read_file', { path: 'src/app.ts' })
  assert.deepEqual(result, {
    path: 'src/app.ts',
    content: '1|const a = 1\n2|\n3|export { a }',
    offset: 1,
    lines_returned: 3,
    total_lines: 3,
    size_bytes: 26,
    truncated: false
  })
})

test('read_file accepts an absolute path inside the workspace and "./" forms', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'a.txt': 'x' })
  assert.equal((await fx.json('read_file', { path: join(fx.ws, 'a.txt') })).content, '1|x')
  assert.equal((await fx.json('read_file', { path: './sub/../a.txt' })).content, '1|x')
})

test('read_file counts a last line without newline, shows CRLF lines without \\r, and reads an empty file', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'crlf.txt': 'one\r\ntwo\r\nthree', 'empty.txt': '' })
  const crlf = await fx.json('read_file', { path: 'crlf.txt' })
  assert.equal(crlf.content, '1|one\n2|two\n3|three')
  assert.equal(crlf.total_lines, 3)
  const empty = await fx.json('read_file', { path: 'empty.txt' })
  assert.equal(empty.content, '')
  assert.equal(empty.total_lines, 0)
  assert.equal(empty.next_offset, undefined)
})

test('read_file pages with offset and limit; next_offset walks the whole file exactly once', async (t) => {
  const fx = await fileFixture(t)
  const lines = Array.from({ length: 25 }, (_, i) => `line ${i + 1}`)
  await fx.put({ 'long.txt': lines.join('\n') + '\n' })
  const page = await fx.json('read_file', { path: 'long.txt', offset: 5, limit: 3 })
  assert.equal(page.content, numbered(lines.slice(4, 7), 5))
  assert.equal(page.next_offset, 8)
  assert.equal(page.truncated, false, 'the limit, not the budget, ended this page')
  assert.equal(page.total_lines, 25)

  const seen: string[] = []
  let offset: number | undefined = 1
  while (offset !== undefined) {
    const next: Record<string, unknown> = await fx.json('read_file', { path: 'long.txt', offset, limit: 7 })
    seen.push(...(next.content as string).split('\n'))
    offset = next.next_offset as number | undefined
  }
  assert.deepEqual(seen, lines.map((line, i) => `${i + 1}|${line}`))
})

test('read_file stops at a whole line before the character budget and says where to go on', async (t) => {
  const fx = await fileFixture(t)
  withLimits(t, { readCharBudget: 100 })
  const lines = Array.from({ length: 40 }, (_, i) => `row ${i + 1} ${'x'.repeat(i % 7)}`)
  await fx.put({ 'rows.txt': lines.join('\n') + '\n' })
  const first = await fx.json('read_file', { path: 'rows.txt' })
  assert.equal(first.truncated, true)
  const content = first.content as string
  assert.ok(content.length <= 100, `page of ${content.length} characters`)
  const shown = content.split('\n')
  // Every row is a whole line of the file, in order.
  assert.deepEqual(shown, numbered(lines.slice(0, shown.length)).split('\n'))
  assert.equal(first.next_offset, shown.length + 1)
  // One more line would not have fitted.
  assert.ok(content.length + 1 + `${shown.length + 1}|${lines[shown.length]}`.length > 100)

  const second = await fx.json('read_file', { path: 'rows.txt', offset: first.next_offset })
  assert.ok((second.content as string).startsWith(`${shown.length + 1}|row ${shown.length + 1}`))
})

test('read_file cuts a single line longer than the budget and still moves on', async (t) => {
  const fx = await fileFixture(t)
  withLimits(t, { readCharBudget: 200 })
  await fx.put({ 'min.js': `${'y'.repeat(5000)}\nshort\n` })
  const first = await fx.json('read_file', { path: 'min.js' })
  assert.deepEqual(first.cut_lines, [1])
  const [cut, next] = (first.content as string).split('\n')
  assert.match(cut, /^1\|y+ … \[line 1 cut: longer than 200 characters\]$/)
  assert.equal(next, '2|short')
  assert.ok((first.content as string).length <= 200)
  assert.equal(first.next_offset, undefined)
})

test('read_file gives no total for files too large to count, but still pages', async (t) => {
  const fx = await fileFixture(t)
  withLimits(t, { readCountLinesUpToBytes: 100 })
  await fx.put({ 'big.txt': 'abcdefghi\n'.repeat(50) })
  const page = await fx.json('read_file', { path: 'big.txt', limit: 2 })
  assert.equal(page.total_lines, null)
  assert.equal(page.next_offset, 3)
  const tail = await fx.json('read_file', { path: 'big.txt', offset: 49 })
  assert.equal(tail.content, '49|abcdefghi\n50|abcdefghi')
  assert.equal(tail.total_lines, 50)
})

test('read_file refuses an offset past the end with the line count', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'a.txt': 'one\ntwo\n' })
  const outcome = await fx.h.call('read_file', { path: 'a.txt', offset: 9 })
  assert.equal(outcome.status, 'error')
  assert.match(outcome.content, /offset 9 is past the end of \\"a.txt\\", which has 2 lines/)
})

test('read_file refuses binary files politely: NUL bytes and invalid UTF-8', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({
    'image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]),
    'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])
  })
  const png = await fx.json('read_file', { path: 'image.png' })
  assert.match(png.error as string, /Cannot use "image.png" as text: it contains NUL bytes \(a binary file\)/)
  assert.equal(png.binary, true)
  const latin1 = await fx.json('read_file', { path: 'latin1.txt' })
  assert.match(latin1.error as string, /not valid UTF-8/)
})

test('read_file accepts UTF-8 whose multi-byte character straddles the sniffed prefix', async (t) => {
  const fx = await fileFixture(t)
  withLimits(t, { sniffBytes: 8 })
  // "aaaaaaa€": the euro sign's three bytes start at byte 7, so the first 8 bytes end mid-character.
  await fx.put({ 'euro.txt': 'aaaaaaa€\n' })
  assert.equal((await fx.json('read_file', { path: 'euro.txt' })).content, '1|aaaaaaa€')
})

test('read_file refuses a folder with a hint to search_files, and names a missing file', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'docs/readme.md': '# hi' })
  const folder = await fx.json('read_file', { path: 'docs' })
  assert.match(folder.error as string, /"docs" is a folder, not a file\. Use search_files with target "files"/)
  const missing = await fx.json('read_file', { path: 'nope.txt' })
  assert.equal(missing.error, 'File not found: "nope.txt"')
  assert.equal(missing.path, 'nope.txt')
})

// The quick way holds plain descriptors (no FileHandle closes a forgotten one when collected): every
// way out of a call, answer, refusal or error, must close what it opened.
test('read_file leaves no descriptor open, whatever the outcome', { skip: process.platform !== 'linux' }, async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'a.txt': 'one\ntwo\n', 'image.png': Buffer.from([0x89, 0x50, 0x00, 0x00]), 'docs/readme.md': '# hi' })
  await symlink(join(fx.outside, 'secret.txt'), join(fx.ws, 'out.txt'))
  const calls = [{ path: 'a.txt' }, { path: 'a.txt', offset: 9 }, { path: 'image.png' }, { path: 'docs' }, { path: 'nope.txt' }, { path: 'out.txt' }]
  const open = (): number => readdirSync('/proc/self/fd').length
  for (const args of calls) await fx.h.call('read_file', args)
  const before = open()
  for (let round = 0; round < 20; round++) {
    const outcomes = await Promise.all(calls.map(async (args) => await fx.h.call('read_file', args)))
    assert.deepEqual(outcomes.map((outcome) => outcome.status), ['ok', 'error', 'error', 'error', 'error', 'error'])
  }
  assert.ok(open() <= before, `descriptors open before ${before}, after ${open()}`)
})

test('read_file follows a symlink that stays inside the workspace', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'real/target.txt': 'inside\n' })
  const { symlink } = await import('node:fs/promises')
  await symlink('real/target.txt', join(fx.ws, 'alias.txt'))
  const result = await fx.json('read_file', { path: 'alias.txt' })
  assert.equal(result.content, '1|inside')
  assert.equal(result.path, 'real/target.txt')
})

test('the workspace root is created on first use (mkdir -p)', async (t) => {
  const base = await mkdtemp(join(tmpdir(), 'gw-ws-'))
  t.after(() => rm(base, { recursive: true, force: true }))
  const root = join(base, 'not', 'yet', 'there')
  const fx = await fileFixture(t, { WORKSPACE_ROOT: root })
  await rm(join(base, 'not'), { recursive: true })
  const missing = await fx.json('read_file', { path: 'a.txt' })
  assert.equal(missing.error, 'File not found: "a.txt"')
  assert.ok((await stat(root)).isDirectory())
})
