// Every escape from the workspace, tried against every file tool: each must be refused with a clear
// error naming the path and the reason, nothing outside may be read, listed, created or changed,
// and nothing may hang (FIFOs, devices).
import assert from 'node:assert/strict'
import { readFile, readdir, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { fileFixture, makeFifo, SECRET, type FileFixture } from './setup.ts'

interface EscapeCase {
  name: string
  /** Prepares the workspace and returns the path to try; undefined skips the case. */
  prepare: (fx: FileFixture, t: TestContext) => Promise<string | undefined>
  reason: RegExp
  /** Whether the search tool can take this path (it searches folders too). */
  forSearch?: boolean
}

const CASES: EscapeCase[] = [
  { name: '../ escape', prepare: async () => '../outside/secret.txt', reason: /climbs out of the workspace with \.\./ },
  { name: 'deep ../ escape after a real folder', prepare: async (fx) => { await fx.put({ 'sub/a.txt': 'a' }); return 'sub/../../outside/secret.txt' }, reason: /climbs out/ },
  { name: 'absolute path outside', prepare: async (fx) => join(fx.outside, 'secret.txt'), reason: /absolute path outside the workspace/ },
  { name: 'absolute /etc/passwd', prepare: async () => '/etc/passwd', reason: /absolute path outside the workspace/ },
  { name: 'sibling prefix <root>-evil (absolute)', prepare: async (fx) => join(fx.evil, 'secret.txt'), reason: /absolute path outside the workspace/ },
  { name: 'sibling prefix <root>-evil (relative)', prepare: async () => '../workspace-evil/secret.txt', reason: /climbs out/ },
  {
    name: 'symlinked file pointing outside',
    prepare: async (fx) => { await symlink(join(fx.outside, 'secret.txt'), join(fx.ws, 'link-file')); return 'link-file' },
    reason: /leads outside the workspace through a symbolic link/
  },
  {
    name: 'symlinked folder pointing outside, file under it',
    prepare: async (fx) => { await symlink(fx.outside, join(fx.ws, 'link-dir')); return 'link-dir/secret.txt' },
    reason: /leads outside the workspace through a symbolic link/
  },
  {
    name: 'symlinked folder pointing outside, the folder itself',
    prepare: async (fx) => { await symlink(fx.outside, join(fx.ws, 'link-dir')); return 'link-dir' },
    reason: /leads outside the workspace through a symbolic link/
  },
  {
    name: 'relative symlink climbing out, nested two levels deep',
    prepare: async (fx) => { await fx.put({ 'a/b/keep.txt': '' }); await symlink('../../../outside', join(fx.ws, 'a/b/up')); return 'a/b/up/secret.txt' },
    reason: /through a symbolic link/
  },
  {
    name: 'symlink to the sibling <root>-evil',
    prepare: async (fx) => { await symlink(fx.evil, join(fx.ws, 'evil')); return 'evil/secret.txt' },
    reason: /through a symbolic link/
  },
  {
    name: 'dangling symlink pointing outside',
    prepare: async (fx) => { await symlink(join(fx.empty, 'created.txt'), join(fx.ws, 'dangling')); return 'dangling' },
    reason: /through a symbolic link/
  },
  {
    name: 'missing file under a symlinked folder outside',
    prepare: async (fx) => { await symlink(fx.empty, join(fx.ws, 'link-empty')); return 'link-empty/new/deep.txt' },
    reason: /through a symbolic link/
  },
  {
    name: 'chain of symlinks ending outside',
    prepare: async (fx) => {
      await symlink(join(fx.outside, 'secret.txt'), join(fx.ws, 'hop2'))
      await symlink('hop2', join(fx.ws, 'hop1'))
      return 'hop1'
    },
    reason: /through a symbolic link/
  },
  { name: 'symlink loop', prepare: async (fx) => { await symlink('loop-b', join(fx.ws, 'loop-a')); await symlink('loop-a', join(fx.ws, 'loop-b')); return 'loop-a' }, reason: /too many levels of symbolic links/ },
  { name: '/dev/zero via a symlink', prepare: async (fx) => { await symlink('/dev/zero', join(fx.ws, 'zero')); return 'zero' }, reason: /through a symbolic link/ },
  { name: '/dev/null via a symlink', prepare: async (fx) => { await symlink('/dev/null', join(fx.ws, 'null')); return 'null' }, reason: /through a symbolic link/ },
  { name: 'NUL byte', prepare: async () => 'notes\0.txt', reason: /contains a NUL byte/ },
  { name: 'over-long name', prepare: async () => `${'n'.repeat(256)}.txt`, reason: /longer than 255 bytes/ },
  { name: 'over-long path', prepare: async () => 'abc/'.repeat(1100) + 'x.txt', reason: /limit is 4096/ },
  {
    name: 'FIFO',
    prepare: async (fx, t) => (makeFifo(t, join(fx.ws, 'pipe')) ? 'pipe' : undefined),
    reason: /is a FIFO \(named pipe\); only regular files and folders can be used/
  }
]

interface ToolUnderTest {
  tool: string
  label: string
  args: (path: string) => Record<string, unknown>
}

const TOOLS: ToolUnderTest[] = [
  { tool: 'read_file', label: 'read_file', args: (path) => ({ path }) },
  { tool: 'write_file', label: 'write_file', args: (path) => ({ path, content: 'pwned\n' }) },
  { tool: 'patch', label: 'patch (replace)', args: (path) => ({ path, old_string: 'TOP SECRET', new_string: 'pwned' }) },
  {
    tool: 'patch',
    label: 'patch (unified diff naming the file)',
    args: (path) => ({ mode: 'patch', patch: `--- ${path}\n+++ ${path}\n@@ -1 +1 @@\n-TOP SECRET\n+pwned\n` })
  },
  { tool: 'patch', label: 'patch (unified diff with path)', args: (path) => ({ mode: 'patch', path, patch: '@@ -1 +1 @@\n-TOP SECRET\n+pwned\n' }) },
  { tool: 'search_files', label: 'search_files (content)', args: (path) => ({ pattern: 'SECRET', path }) },
  { tool: 'search_files', label: 'search_files (names)', args: (path) => ({ pattern: '*', target: 'files', path }) }
]

async function assertOutsideUntouched (fx: FileFixture): Promise<void> {
  assert.equal(await readFile(join(fx.outside, 'secret.txt'), 'utf8'), SECRET)
  assert.equal(await readFile(join(fx.evil, 'secret.txt'), 'utf8'), SECRET)
  assert.deepEqual(await readdir(fx.outside), ['secret.txt'])
  assert.deepEqual(await readdir(fx.empty), [])
}

for (const { tool, label, args } of TOOLS) {
  for (const escape of CASES) {
    test(`${label} refuses: ${escape.name}`, async (t) => {
      const fx = await fileFixture(t)
      const path = await escape.prepare(fx, t)
      if (path === undefined) return
      const outcome = await fx.h.call(tool, args(path), { timeoutMs: 5000 })
      assert.equal(outcome.status, 'error', outcome.content)
      const result = JSON.parse(outcome.content) as { error: string }
      assert.match(result.error, escape.reason)
      // The message names the path (quoted and escaped; long ones are cut).
      assert.ok(result.error.includes(JSON.stringify(path).slice(0, 60)), result.error)
      assert.ok(!outcome.content.includes('TOP SECRET'), 'secret content leaked into the result')
      await assertOutsideUntouched(fx)
    })
  }
}

test('refusals are checked before the file system: a NUL byte never reaches fs (no ERR_INVALID_ARG_VALUE)', async (t) => {
  const fx = await fileFixture(t)
  for (const tool of TOOLS) {
    const outcome = await fx.h.call(tool.tool, tool.args('a\0b'))
    assert.match(outcome.content, /NUL byte/, `${tool.label}: ${outcome.content}`)
  }
})
