// The benchmark's own arithmetic: the percentiles, medians and paired ratios its report rests on,
// the failure list that makes a run exit non-zero, and the floor's page of lines, which must answer
// what read_file answers (the run checks it too, but only for the files it generates).
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { readFileResult } from '../../bench/floor-files.ts'
import { failuresOf, median, pairedRatios, percentile, type Measured } from '../../bench/stats.ts'

test('percentile: nearest rank over sorted values, rounded to 0.01 ms; NaN when empty', () => {
  const sorted = Array.from({ length: 100 }, (_, i) => i + 1.004)
  assert.equal(percentile(sorted, 0.5), 50)
  assert.equal(percentile(sorted, 0.99), 99)
  assert.equal(percentile(sorted, 1), 100)
  assert.equal(percentile([3.456], 0.99), 3.46)
  assert.ok(Number.isNaN(percentile([], 0.5)))
})

test('median: middle value, or the mean of the two middle ones, whatever the input order', () => {
  assert.equal(median([5, 1, 3]), 3)
  assert.equal(median([4, 1, 3, 2]), 2.5)
  assert.ok(Number.isNaN(median([])))
})

test('pairedRatios: round i over round i, then the median of those ratios', () => {
  const { median: ratio, rounds } = pairedRatios([90, 50, 200], [100, 100, 100])
  assert.deepEqual(rounds, [0.9, 0.5, 2])
  assert.equal(ratio, 0.9)
})

test('failuresOf: names every scenario with another status, an error or a timeout, and only those', () => {
  const base: Measured = { pair: 'p', side: 'gateway', description: '', requestsPerSecond: 1, p50Ms: 1, p99Ms: 1, totalRequests: 1, serverCpuUsPerRequest: 1, unexpected: {}, errors: 0, timeouts: 0 }
  assert.deepEqual(failuresOf([base]), [])
  const failures = failuresOf([base, { ...base, pair: 'a', unexpected: { 500: 3 } }, { ...base, pair: 'b', side: 'floor', timeouts: 1 }])
  assert.equal(failures.length, 2)
  assert.match(failures[0], /^a\/gateway: .*"500":3/)
  assert.match(failures[1], /^b\/floor: .*1 timeouts/)
})

test('the floor page: numbered lines from offset, the budget and limit, next_offset and the total', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'bench-floor-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'a.txt'), 'one\ntwo\nthree\nfour')
  assert.deepEqual(JSON.parse(await readFileResult(dir, 'a.txt')), {
    path: 'a.txt', content: '1|one\n2|two\n3|three\n4|four', offset: 1, lines_returned: 4, total_lines: 4, size_bytes: 18, truncated: false
  })
  assert.deepEqual(JSON.parse(await readFileResult(dir, 'a.txt', 2, 2)), {
    path: 'a.txt', content: '2|two\n3|three', offset: 2, lines_returned: 2, total_lines: 4, size_bytes: 18, truncated: false, next_offset: 4
  })
  await writeFile(join(dir, 'long.txt'), `${'x'.repeat(30_000)}\n${'y'.repeat(30_000)}\n`)
  const page = JSON.parse(await readFileResult(dir, 'long.txt'))
  assert.equal(page.lines_returned, 1)
  assert.equal(page.truncated, true)
  assert.equal(page.next_offset, 2)
  assert.equal(page.total_lines, 2)
})
