// The threads that match search patterns are pooled (regex-pool.ts) and files are sent in batches
// (search-contents.ts): threads are reused across searches, a killed one is never reused, a search
// stuck on a catastrophic pattern holds up no other, an idle thread does not keep the process
// alive, and results, pages and counts do not depend on where batches end.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { poolStats } from '../../../tools/file/lib/regex-pool.ts'
import { fileFixture, withLimits } from './setup.ts'

const CATASTROPHIC = { 'a.txt': 'fine\n', 'b.txt': `${'a'.repeat(40)}b\n`, 'c.txt': 'aaa\n' }

test('threads are reused from one search to the next', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ 'a.txt': 'needle\n', 'b.txt': 'hay\n' })
  await fx.json('search_files', { pattern: 'needle' })
  const before = poolStats()
  assert.ok(before.idle >= 1, 'a thread waits for the next search')
  for (let i = 0; i < 5; i++) {
    const result = await fx.json('search_files', { pattern: i % 2 === 0 ? 'needle' : 'hay' })
    assert.equal(result.output, i % 2 === 0 ? 'a.txt:1:needle' : 'b.txt:1:hay')
  }
  assert.equal(poolStats().started, before.started, 'no thread started for the later searches')
})

test('a thread killed at the deadline is dropped, and the next search matches on a sound one', async (t) => {
  const fx = await fileFixture(t)
  await fx.put(CATASTROPHIC)
  await fx.json('search_files', { pattern: 'fine' })
  const idleBefore = poolStats().idle
  withLimits(t, { searchDeadlineMs: 1000 })
  const stuck = await fx.json('search_files', { pattern: '^(a+)+$' })
  assert.match(stuck.truncated_reason as string, /time limit was reached while matching b\.txt \(the pattern may backtrack/)
  assert.equal(poolStats().idle, idleBefore - 1, 'the killed thread is not back in the pool')
  const after = await fx.json('search_files', { pattern: '^a+$' })
  assert.equal(after.output, 'c.txt:1:aaa')
  assert.equal(after.truncated, false)
})

test('a search stuck on a catastrophic pattern does not hold up another running at the same time', async (t) => {
  const fx = await fileFixture(t)
  await fx.put({ ...CATASTROPHIC, 'd.txt': 'needle\n' })
  withLimits(t, { searchDeadlineMs: 4000 })
  const stuck = fx.json('search_files', { pattern: '^(a+)+$', path: 'b.txt' })
  // Let the stuck search reach its thread first.
  await new Promise((resolve) => setTimeout(resolve, 200))
  const started = performance.now()
  const other = await fx.json('search_files', { pattern: 'needle|^aaa$' })
  const elapsed = performance.now() - started
  assert.equal(other.output, 'c.txt:1:aaa\nd.txt:1:needle')
  assert.equal(other.truncated, false)
  assert.ok(elapsed < 3000, `the other search waited ${Math.round(elapsed)} ms`)
  assert.match((await stuck).truncated_reason as string, /4000 ms time limit was reached while matching b\.txt/)
})

test('an idle thread in the pool does not keep the process alive', async () => {
  const pool = fileURLToPath(new URL('../../../tools/file/lib/regex-pool.ts', import.meta.url))
  const script = [
    `const { matchTexts, poolStats } = await import(${JSON.stringify(pool)})`,
    "const reply = await matchTexts({ source: 'b', flags: '', texts: ['a\\nb\\n'], mode: 'content', wanted: 5, deadline: Date.now() + 5000 }, { deadline: Date.now() + 5000, graceMs: 250 })",
    'console.log(JSON.stringify({ reply, idle: poolStats().idle }))'
  ].join('\n')
  const started = performance.now()
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 })
  const elapsed = performance.now() - started
  assert.deepEqual(JSON.parse(stdout), { reply: { files: [{ lines: [1], count: 1 }], timedOut: false }, idle: 1 })
  // The thread would wait 30 s for another job; the process ends long before.
  assert.ok(elapsed < 15_000, `the process took ${Math.round(elapsed)} ms to end`)
})

/** 100 files, matches spread so that pages and batches (32 files) end in different places. */
function manyFiles (): { files: Record<string, string | Buffer>, lines: string[], withMatches: string[] } {
  const files: Record<string, string | Buffer> = {}
  const lines: string[] = []
  const withMatches: string[] = []
  for (let i = 0; i < 100; i++) {
    const name = `f${String(i).padStart(3, '0')}.txt`
    // A binary file now and then: skipped, and counted as such only where the search reaches.
    const binary = i % 10 === 5
    const hits = i % 3 === 0 && !binary ? 1 + (i % 4) : 0
    const content: string[] = ['start']
    for (let h = 0; h < hits; h++) {
      content.push(`hit ${i}.${h}`)
      lines.push(`${name}:${h + 2}:hit ${i}.${h}`)
    }
    if (hits > 0) withMatches.push(name)
    files[name] = binary ? Buffer.from('hit\0') : `${content.join('\n')}\n`
  }
  return { files, lines, withMatches }
}

test('pages, counts and files scanned do not depend on where batches end', async (t) => {
  const fx = await fileFixture(t)
  const { files, lines, withMatches } = manyFiles()
  await fx.put(files)
  const all = await fx.json('search_files', { pattern: '^hit', limit: 1000 })
  assert.equal(all.output, lines.join('\n'))
  assert.equal(all.files_scanned, 90)
  assert.deepEqual(all.skipped, { binary: 10 })
  const pages: string[] = []
  for (let offset: number | undefined = 0; offset !== undefined;) {
    const page: Record<string, unknown> = await fx.json('search_files', { pattern: '^hit', limit: 7, offset })
    pages.push(page.output as string)
    offset = page.next_offset as number | undefined
  }
  assert.equal(pages.join('\n'), lines.join('\n'))
  // The 21st line, which says more exist, is in f027: the files after it are neither counted as
  // scanned (28 up to it, 3 of them binary) nor as skipped, though their batch was read.
  const first = await fx.json('search_files', { pattern: '^hit', limit: 20 })
  assert.equal(first.files_scanned, 25)
  assert.deepEqual(first.skipped, { binary: 3 })
  assert.equal(first.next_offset, 20)
  const named = await fx.json('search_files', { pattern: '^hit', output_mode: 'files_with_matches', limit: 30, offset: 3 })
  assert.deepEqual(named.files, withMatches.slice(3, 33))
  const counts = await fx.json('search_files', { pattern: '^hit', output_mode: 'count', limit: 1000 })
  assert.deepEqual((counts.counts as Array<{ count: number }>).map(({ count }) => count), withMatches.map((name) => (Number(name.slice(1, 4)) % 4) + 1))
})
