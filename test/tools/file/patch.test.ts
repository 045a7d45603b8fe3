// patch: exact replacement (once, replace_all, closest-lines and multi-match errors) and unified
// diffs applied all-or-nothing with jsdiff; a failed edit leaves every file byte-identical.
import assert from 'node:assert/strict'
import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileFixture, leftoverTempFiles } from './setup.ts'

const SOURCE = [
  'import { load } from "./load"',
  '',
  'export function main () {',
  '  const config = load()',
  '  return config.port',
  '}',
  ''
].join('\n')

test('patch replaces text that occurs once and shows a small diff', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'src/main.ts': SOURCE })
  const result = await fx.json('patch', { path: 'src/main.ts', old_string: '  return config.port', new_string: '  return config.port ?? 8080' })
  assert.equal(result.mode, 'replace')
  assert.equal(result.replacements, 1)
  assert.deepEqual(result.lines, [5])
  assert.match(result.diff as string, /^@@ -3,4 \+3,4 @@/)
  assert.match(result.diff as string, /\n- {2}return config\.port\n\+ {2}return config\.port \?\? 8080/)
  assert.equal(await readFile(join(fx.ws, 'src/main.ts'), 'utf8'), SOURCE.replace('config.port', 'config.port ?? 8080'))
  assert.deepEqual(await leftoverTempFiles(fx.ws), [])
})

test('patch inserts new_string literally ($& and $1 are not special)', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'a.txt': 'price: X\n' })
  await fx.json('patch', { path: 'a.txt', old_string: 'X', new_string: '$& $1 $$' })
  assert.equal(await readFile(join(fx.ws, 'a.txt'), 'utf8'), 'price: $& $1 $$\n')
})

test('patch keeps the permission bits of the file it edits', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'tool.sh': 'echo a\n' })
  const { chmod } = await import('node:fs/promises')
  await chmod(join(fx.ws, 'tool.sh'), 0o700)
  await fx.json('patch', { path: 'tool.sh', old_string: 'echo a', new_string: 'echo b' })
  assert.equal((await stat(join(fx.ws, 'tool.sh'))).mode & 0o777, 0o700)
})

test('patch with no match shows the closest lines with their numbers and changes nothing', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'src/main.ts': SOURCE })
  const outcome = await fx.h.call('patch', { path: 'src/main.ts', old_string: '  const cfg = load()\n  return cfg.port', new_string: 'x' })
  assert.equal(outcome.status, 'error')
  const result = JSON.parse(outcome.content) as { error: string, closest: Record<string, unknown>, matches: number }
  assert.equal(result.matches, 0)
  assert.match(result.error, /^old_string was not found in "src\/main.ts"; nothing was changed\. The closest text is at lines 4-5 \(similarity 0\.\d+\)/)
  assert.ok(result.error.endsWith('\n4|  const config = load()\n5|  return config.port'), result.error)
  assert.equal(result.closest.start_line, 4)
  assert.equal(result.closest.end_line, 5)
  assert.equal(await readFile(join(fx.ws, 'src/main.ts'), 'utf8'), SOURCE)
})

test('patch with a whitespace-only difference says so', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'src/main.ts': SOURCE })
  const result = await fx.json('patch', { path: 'src/main.ts', old_string: '\tconst config = load()', new_string: 'x' })
  assert.match(result.error as string, /The text at line 4 matches it except for whitespace \(indentation, tabs or trailing spaces\)/)
  assert.ok((result.error as string).endsWith('\n4|  const config = load()'))
})

test('patch with nothing similar tells the model to read the file again', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'src/main.ts': SOURCE })
  const result = await fx.json('patch', { path: 'src/main.ts', old_string: 'zzzz qqqq', new_string: 'x' })
  assert.match(result.error as string, /No similar lines were found: read the file again with read_file/)
})

test('patch refuses several matches without replace_all, saying how many and where', async (t) => {
  const fx = await fileFixture(t)
  const text = 'let a = 1\nlog(a)\nlet b = 2\nlog(a)\n\nlog(a)\n'
  await fx.put({ 'x.js': text })
  const result = await fx.json('patch', { path: 'x.js', old_string: 'log(a)', new_string: 'log(b)' })
  assert.equal(result.error, 'old_string matches 3 times in "x.js" (at lines 2, 4, 6); nothing was changed. ' +
    'Include more surrounding lines in old_string to make it unique, or set replace_all to true to replace every occurrence.')
  assert.equal(result.matches, 3)
  assert.deepEqual(result.lines, [2, 4, 6])
  assert.equal(await readFile(join(fx.ws, 'x.js'), 'utf8'), text)
})

test('patch with replace_all replaces every occurrence', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'x.js': 'log(a)\nlog(a)\nlog(aa)\n' })
  const result = await fx.json('patch', { path: 'x.js', old_string: 'log(a)', new_string: 'print(a)', replace_all: true })
  assert.equal(result.replacements, 2)
  assert.deepEqual(result.lines, [1, 2])
  assert.equal(await readFile(join(fx.ws, 'x.js'), 'utf8'), 'print(a)\nprint(a)\nlog(aa)\n')
})

test('patch adapts LF old/new strings to a CRLF file', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'win.txt': 'one\r\ntwo\r\nthree\r\n' })
  const result = await fx.json('patch', { path: 'win.txt', old_string: 'one\ntwo', new_string: 'uno\ndos' })
  assert.equal(result.replacements, 1)
  assert.equal(await readFile(join(fx.ws, 'win.txt'), 'utf8'), 'uno\r\ndos\r\nthree\r\n')
})

test('patch refuses empty or identical strings, missing arguments, missing and binary files', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'a.txt': 'a\n', 'bin.dat': Buffer.from([0x61, 0x00, 0x62]) })
  assert.match((await fx.json('patch', { path: 'a.txt', old_string: '', new_string: 'x' })).error as string, /old_string is empty/)
  assert.match((await fx.json('patch', { path: 'a.txt', old_string: 'a', new_string: 'a' })).error as string, /identical/)
  assert.match((await fx.json('patch', { path: 'a.txt', old_string: 'a' })).error as string, /new_string is required in replace mode/)
  assert.match((await fx.json('patch', { old_string: 'a', new_string: 'b' })).error as string, /path is required in replace mode/)
  assert.equal((await fx.json('patch', { path: 'nope.txt', old_string: 'a', new_string: 'b' })).error, 'File not found: "nope.txt"')
  assert.match((await fx.json('patch', { path: 'bin.dat', old_string: 'a', new_string: 'b' })).error as string, /Cannot use "bin.dat" as text: it contains NUL bytes/)
})

test('patch refuses to edit a file with invalid UTF-8 past the sniffed prefix (it would corrupt it)', async (t) => {
  const fx = await fileFixture(t)
  const bytes = Buffer.concat([Buffer.from('a'.repeat(9000) + '\n'), Buffer.from([0xff, 0x0a])])
  await fx.put({ 'mixed.txt': bytes })
  assert.match((await fx.json('patch', { path: 'mixed.txt', old_string: 'aaa', new_string: 'b', replace_all: true })).error as string, /not valid UTF-8/)
  assert.deepEqual(await readFile(join(fx.ws, 'mixed.txt')), bytes)
})

const DIFF = [
  '--- a/src/main.ts',
  '+++ b/src/main.ts',
  '@@ -1,4 +1,4 @@',
  '-import { load } from "./load"',
  '+import { load } from "./config"',
  ' ',
  ' export function main () {',
  '   const config = load()',
  '@@ -5,2 +5,3 @@',
  '   return config.port',
  ' }',
  '+// end',
  ''
].join('\n')

test('patch mode applies a unified diff (git a/ b/ names)', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'src/main.ts': SOURCE })
  const result = await fx.json('patch', { mode: 'patch', patch: DIFF })
  assert.deepEqual(result, { mode: 'patch', files: [{ path: 'src/main.ts', hunks_applied: 2, created: false }], hunks_applied: 2 })
  assert.equal(await readFile(join(fx.ws, 'src/main.ts'), 'utf8'), SOURCE.replace('./load', './config') + '// end\n')
})

test('patch mode takes a hunk-only diff for the file named by path', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'src/main.ts': SOURCE })
  const result = await fx.json('patch', { mode: 'patch', path: 'src/main.ts', patch: '@@ -5,1 +5,1 @@\n-  return config.port\n+  return config.host\n' })
  assert.equal(result.hunks_applied, 1)
  assert.match(await readFile(join(fx.ws, 'src/main.ts'), 'utf8'), /return config\.host/)
})

test('patch mode: a hunk that does not apply names the hunk, shows the closest lines, changes nothing', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'src/main.ts': SOURCE })
  const broken = DIFF.replace('   return config.port', '   return settings.port')
  const outcome = await fx.h.call('patch', { mode: 'patch', patch: broken })
  assert.equal(outcome.status, 'error')
  const result = JSON.parse(outcome.content) as { error: string, failed_hunk: number }
  assert.equal(result.failed_hunk, 2)
  assert.match(result.error, /^Hunk 2 of 2 \(@@ -5,2 \+5,3 @@\) does not apply to "src\/main.ts": its context and removed lines were not found in the file; nothing was changed\. The closest text is at lines 5-6/)
  assert.ok(result.error.endsWith('\n5|  return config.port\n6|}'), result.error)
  assert.equal(await readFile(join(fx.ws, 'src/main.ts'), 'utf8'), SOURCE)
  assert.deepEqual(await leftoverTempFiles(fx.ws), [])
})

test('patch mode creates a file from /dev/null, with its folders', async (t) => {
  const fx = await fileFixture(t)
  const result = await fx.json('patch', { mode: 'patch', patch: '--- /dev/null\n+++ b/docs/new/readme.md\n@@ -0,0 +1,2 @@\n+# Title\n+text\n' })
  assert.deepEqual(result.files, [{ path: 'docs/new/readme.md', hunks_applied: 1, created: true }])
  assert.equal(await readFile(join(fx.ws, 'docs/new/readme.md'), 'utf8'), '# Title\ntext\n')
  const again = await fx.json('patch', { mode: 'patch', patch: '--- /dev/null\n+++ b/docs/new/readme.md\n@@ -0,0 +1 @@\n+x\n' })
  assert.match(again.error as string, /creates "docs\/new\/readme.md", which already exists/)
})

test('patch mode changes several files, or none when one of them fails', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n' })
  const both = '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-alpha\n+ALPHA\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-beta\n+BETA\n'
  const failing = both.replace('ALPHA', 'AAA').replace('-beta', '-gamma')
  const refused = await fx.json('patch', { mode: 'patch', patch: failing })
  assert.match(refused.error as string, /Hunk 1 of 1 .* does not apply to "b.txt"/)
  assert.equal(await readFile(join(fx.ws, 'a.txt'), 'utf8'), 'alpha\n', 'the first file must stay unchanged too')
  const result = await fx.json('patch', { mode: 'patch', patch: both })
  assert.equal(result.hunks_applied, 2)
  assert.equal(await readFile(join(fx.ws, 'a.txt'), 'utf8'), 'ALPHA\n')
  assert.equal(await readFile(join(fx.ws, 'b.txt'), 'utf8'), 'BETA\n')
})

test('patch mode refuses a diff naming another file than path, deletions, renames and non-diffs', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n' })
  const forA = '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-alpha\n+ALPHA\n'
  assert.match((await fx.json('patch', { mode: 'patch', path: 'b.txt', patch: forA })).error as string, /The patch is for "a.txt" but path is "b.txt"/)
  assert.match((await fx.json('patch', { mode: 'patch', patch: '--- a/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-alpha\n' })).error as string, /deletes a file/)
  assert.match((await fx.json('patch', { mode: 'patch', patch: '--- a/a.txt\n+++ b/c.txt\n@@ -1 +1 @@\n-alpha\n+ALPHA\n' })).error as string, /renames "a.txt" to "c.txt"/)
  assert.match((await fx.json('patch', { mode: 'patch', patch: 'please change alpha' })).error as string, /patch contains no hunks/)
  assert.match((await fx.json('patch', { mode: 'patch', patch: '@@ -1,3 +1,1 @@\n-alpha\n' })).error as string, /not a valid unified diff|cannot be applied|names no file/)
  assert.match((await fx.json('patch', { mode: 'patch', patch: '@@ -1 +1 @@\n-alpha\n+A\n' })).error as string, /names no file .*pass path/)
  assert.match((await fx.json('patch', { mode: 'patch' })).error as string, /patch is required in patch mode/)
  assert.equal(await readFile(join(fx.ws, 'a.txt'), 'utf8'), 'alpha\n')
  assert.deepEqual((await readdir(fx.ws)).sort(), ['a.txt', 'b.txt'])
})
