// Reads sized by the one fstat a call makes: a small file is read in one read (no read only to
// learn the end), and a file that grew after its fstat is still read to its end.
import assert from 'node:assert/strict'
import { appendFile, mkdtemp, open, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { readWhole } from '../../../tools/file/lib/file-io.ts'
import { readLinePage } from '../../../tools/file/lib/line-page.ts'

async function tempFile (t: TestContext, content: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-file-io-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'f.txt')
  await writeFile(file, content)
  return file
}

const PAGE = { offset: 1, limit: 2000, budget: 50_000, countAll: true }

test('a small file of known size is paged in one read, and its first bytes are shown to inspectStart', async (t) => {
  const handle = await open(await tempFile(t, 'one\ntwo\nthree\n'))
  t.after(() => handle.close())
  let reads = 0
  const counted = { read: ((...args: Parameters<typeof handle.read>) => { reads += 1; return handle.read(...args) }) as typeof handle.read }
  const starts: string[] = []
  const page = await readLinePage(counted, { ...PAGE, size: (await handle.stat()).size, inspectStart: (start) => { starts.push(start.toString()) } })
  assert.equal(page.content, '1|one\n2|two\n3|three')
  assert.equal(page.totalLines, 3)
  assert.equal(reads, 1)
  assert.deepEqual(starts, ['one\ntwo\nthree\n'])
})

test('a page whose inspectStart throws stops with that error (the binary refusal)', async (t) => {
  const handle = await open(await tempFile(t, 'a\0b\n'))
  t.after(() => handle.close())
  await assert.rejects(readLinePage(handle, { ...PAGE, size: 4, inspectStart: () => { throw new Error('binary') } }), /binary/)
})

test('a file that grew after its fstat is paged and read whole to its new end', async (t) => {
  const file = await tempFile(t, 'one\n')
  const handle = await open(file)
  t.after(() => handle.close())
  const { size } = await handle.stat()
  await appendFile(file, 'two\nthree\n')
  assert.equal((await readLinePage(handle, { ...PAGE, size })).content, '1|one\n2|two\n3|three')
  assert.equal((await readWhole(handle, size)).toString(), 'one\ntwo\nthree\n')
  // Past `max` the read stops (the caller refuses): it never reads an unbounded file whole.
  assert.ok((await readWhole(handle, size, 6)).length > 6)
  assert.ok((await readWhole(handle, size, 6)).length < 14)
})

test('readWhole of an empty file is empty', async (t) => {
  const handle = await open(await tempFile(t, ''))
  t.after(() => handle.close())
  assert.equal((await readWhole(handle, 0)).length, 0)
})
