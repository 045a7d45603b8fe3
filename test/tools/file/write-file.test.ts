// write_file: creates files and folders, replaces atomically (no temp file left, also on failure),
// keeps permissions, writes through inside links, refuses folders and oversized content.
import assert from 'node:assert/strict'
import { chmod, lstat, mkdir, readdir, readFile, readlink, stat, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { writeFileAtomic } from '../../../tools/file/lib/atomic-write.ts'
import { fileFixture, leftoverTempFiles, withLimits } from './setup.ts'

test('write_file creates a file and its missing folders, reporting bytes (not characters)', async (t) => {
  const fx = await fileFixture(t)
  const result = await fx.json('write_file', { path: 'notes/2024/café.md', content: 'Grüße €\n' })
  assert.deepEqual(result, {
    path: 'notes/2024/café.md',
    bytes_written: Buffer.byteLength('Grüße €\n'),
    created: true,
    created_folders: ['notes', 'notes/2024']
  })
  assert.equal(await readFile(join(fx.ws, 'notes/2024/café.md'), 'utf8'), 'Grüße €\n')
  assert.deepEqual(await leftoverTempFiles(fx.ws), [])
})

test('write_file replaces an existing file, keeps its permission bits, leaves no temp file', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'run.sh': 'echo old\n' })
  await chmod(join(fx.ws, 'run.sh'), 0o750)
  const result = await fx.json('write_file', { path: 'run.sh', content: 'echo new\n' })
  assert.deepEqual(result, { path: 'run.sh', bytes_written: 9, created: false })
  assert.equal(await readFile(join(fx.ws, 'run.sh'), 'utf8'), 'echo new\n')
  assert.equal((await stat(join(fx.ws, 'run.sh'))).mode & 0o777, 0o750)
  assert.deepEqual(await readdir(fx.ws), ['run.sh'])
})

test('write_file writes an empty file', async (t) => {
  const fx = await fileFixture(t)
  assert.equal((await fx.json('write_file', { path: 'empty', content: '' })).bytes_written, 0)
  assert.equal((await stat(join(fx.ws, 'empty'))).size, 0)
})

test('write_file refuses content over the size limit and writes nothing', async (t) => {
  const fx = await fileFixture(t)
  withLimits(t, { maxWriteBytes: 10 })
  const result = await fx.json('write_file', { path: 'big.txt', content: '€'.repeat(4) })
  assert.match(result.error as string, /content is 12 bytes, more than the 10-byte limit of write_file; nothing was written/)
  assert.deepEqual(await readdir(fx.ws), [])
})

test('write_file refuses a folder as target and a file used as a folder', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'docs/a.md': 'a', 'plain.txt': 'p' })
  assert.match((await fx.json('write_file', { path: 'docs', content: 'x' })).error as string, /"docs" is a folder; give the path of a file inside it/)
  assert.match((await fx.json('write_file', { path: 'plain.txt/inner.txt', content: 'x' })).error as string, /Refused path "plain.txt\/inner.txt": .*"plain.txt" is not a folder/)
  assert.equal(await readFile(join(fx.ws, 'plain.txt'), 'utf8'), 'p')
})

test('write_file through a symlink inside the workspace updates its target and keeps the link', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'real/config.json': '{}' })
  await symlink('real/config.json', join(fx.ws, 'config.json'))
  const result = await fx.json('write_file', { path: 'config.json', content: '{"a":1}' })
  assert.equal(result.path, 'real/config.json')
  assert.equal(result.created, false)
  assert.ok((await lstat(join(fx.ws, 'config.json'))).isSymbolicLink())
  assert.equal(await readlink(join(fx.ws, 'config.json')), 'real/config.json')
  assert.equal(await readFile(join(fx.ws, 'real/config.json'), 'utf8'), '{"a":1}')
})

test('write_file through a dangling symlink inside the workspace creates its target inside', async (t) => {
  const fx = await fileFixture(t)
  await mkdir(join(fx.ws, 'later'))
  await symlink('later/file.txt', join(fx.ws, 'pending'))
  const result = await fx.json('write_file', { path: 'pending', content: 'now' })
  assert.equal(result.path, 'later/file.txt')
  assert.equal(await readFile(join(fx.ws, 'later/file.txt'), 'utf8'), 'now')
})

test('write_file into a folder reached through an inside symlink stays inside', async (t) => {
  const fx = await fileFixture(t)
  await mkdir(join(fx.ws, 'src'))
  await symlink('src', join(fx.ws, 'alias'))
  const result = await fx.json('write_file', { path: 'alias/new/x.ts', content: 'x' })
  assert.equal(result.path, 'src/new/x.ts')
  assert.deepEqual(result.created_folders, ['src/new'])
  assert.equal(await readFile(join(fx.ws, 'src/new/x.ts'), 'utf8'), 'x')
})

test('writeFileAtomic leaves the target and no temp file behind when the rename fails', async (t) => {
  const fx = await fileFixture(t)
  // A non-empty folder cannot be replaced by a file: the rename fails after the temp file was written.
  await fx.put({ 'target/keep.txt': 'keep' })
  await assert.rejects(writeFileAtomic(join(fx.ws, 'target'), 'data'), (error: NodeJS.ErrnoException) => ['EISDIR', 'ENOTEMPTY', 'EEXIST'].includes(error.code ?? ''))
  assert.deepEqual((await readdir(fx.ws)).sort(), ['target'])
  assert.deepEqual(await leftoverTempFiles(fx.ws), [])
  assert.equal(await readFile(join(fx.ws, 'target/keep.txt'), 'utf8'), 'keep')
})
