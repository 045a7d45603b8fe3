// The confinement helper on its own: separator-aware containment, text checks before any disk
// access, the real-path walk (links, missing tails, loops), and a workspace root that is itself a link.
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { FileToolError } from '../../../tools/file/lib/errors.ts'
import { checkPathText, isInside, resolveInWorkspace } from '../../../tools/file/lib/paths.ts'
import { openWorkspace, type Workspace } from '../../../tools/file/lib/workspace.ts'

async function tempWorkspace (t: TestContext): Promise<{ base: string, workspace: Workspace }> {
  const base = await mkdtemp(join(tmpdir(), 'gw-paths-'))
  t.after(() => rm(base, { recursive: true, force: true }))
  return { base, workspace: await openWorkspace(join(base, 'ws')) }
}

test('isInside needs the separator: a sibling sharing the prefix is outside', () => {
  assert.equal(isInside('/ws', '/ws'), true)
  assert.equal(isInside('/ws/a', '/ws'), true)
  assert.equal(isInside('/ws-evil', '/ws'), false)
  assert.equal(isInside('/ws-evil/a', '/ws'), false)
  assert.equal(isInside('/wsa', '/ws'), false)
  assert.equal(isInside('/a', '/'), true)
})

test('checkPathText refuses empty, NUL, too long paths and names, without touching the disk', () => {
  const refused = (path: string, pattern: RegExp): void => {
    assert.throws(() => checkPathText(path), (error: unknown) => error instanceof FileToolError && pattern.test(error.message))
  }
  refused('', /The path is empty/)
  refused('   ', /The path is empty/)
  refused('a\0b', /contains a NUL byte/)
  refused('x'.repeat(4097), /4097 bytes long, the limit is 4096/)
  refused(`dir/${'é'.repeat(128)}`, /longer than 255 bytes/)
  checkPathText(`dir/${'é'.repeat(127)}`)
  checkPathText('x'.repeat(255))
})

test('resolveInWorkspace resolves inside paths to their real path, relative form and stats', async (t) => {
  const { workspace } = await tempWorkspace(t)
  await mkdir(join(workspace.real, 'src'))
  await writeFile(join(workspace.real, 'src/a.ts'), 'a')
  const file = await resolveInWorkspace(workspace, 'src/./a.ts')
  assert.equal(file.real, join(workspace.real, 'src/a.ts'))
  assert.equal(file.relative, 'src/a.ts')
  assert.ok(file.stats?.isFile())
  const root = await resolveInWorkspace(workspace, '.')
  assert.equal(root.relative, '.')
  assert.ok(root.stats?.isDirectory())
  const missing = await resolveInWorkspace(workspace, 'src/new/deep.ts')
  assert.equal(missing.real, join(workspace.real, 'src/new/deep.ts'))
  assert.equal(missing.stats, undefined)
})

test('a workspace root that is itself a symlink accepts absolute paths spelled either way', async (t) => {
  const { base } = await tempWorkspace(t)
  await mkdir(join(base, 'real-root'))
  await writeFile(join(base, 'real-root', 'a.txt'), 'a')
  await symlink(join(base, 'real-root'), join(base, 'link-root'))
  const workspace = await openWorkspace(join(base, 'link-root'))
  assert.equal(workspace.real, join(base, 'real-root'))
  assert.equal((await resolveInWorkspace(workspace, join(base, 'link-root', 'a.txt'))).relative, 'a.txt')
  assert.equal((await resolveInWorkspace(workspace, join(base, 'real-root', 'a.txt'))).relative, 'a.txt')
  await assert.rejects(resolveInWorkspace(workspace, join(base, 'link-root-evil', 'a.txt')), /absolute path outside the workspace/)
  await assert.rejects(resolveInWorkspace(workspace, join(base, 'link-root', '..', 'x')), /absolute path outside the workspace/)
})

test('a link through a missing folder and back up with .. is refused (it could climb through another link)', async (t) => {
  const { workspace } = await tempWorkspace(t)
  await symlink('missing/../../outside', join(workspace.real, 'tricky'))
  await assert.rejects(resolveInWorkspace(workspace, 'tricky/x'), /points into a missing folder and back up/)
})

test('a link inside that climbs up and comes back in is fine', async (t) => {
  const { workspace } = await tempWorkspace(t)
  await mkdir(join(workspace.real, 'a'))
  await writeFile(join(workspace.real, 'b.txt'), 'b')
  await symlink('../b.txt', join(workspace.real, 'a', 'up'))
  assert.equal((await resolveInWorkspace(workspace, 'a/up')).relative, 'b.txt')
})

test('openWorkspace creates a missing root and refuses a root that is a file', async (t) => {
  const { base } = await tempWorkspace(t)
  const created = await openWorkspace(join(base, 'x', 'y'))
  assert.equal(created.real, join(base, 'x', 'y'))
  await writeFile(join(base, 'file-root'), '')
  await assert.rejects(openWorkspace(join(base, 'file-root')), /The workspace root .*file-root is not a folder \(a configuration error\)/)
})
