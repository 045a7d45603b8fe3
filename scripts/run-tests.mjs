// Runs every test/**/*.test.ts (or the files named on the command line) with node:test, each file in
// its own process, two at a time; Node 24 strips the TypeScript types itself. `node --test` exits 0
// when its pattern matches nothing, and counts a file that registers no test as one passing test, so
// this refuses an empty file list and fails naming any file that ran no test.
import { globSync } from 'node:fs'
import { resolve } from 'node:path'
import { run } from 'node:test'
import { spec } from 'node:test/reporters'

const named = process.argv.slice(2)
const files = named.length > 0
  ? named
  : globSync('test/**/*.test.ts', { exclude: (path) => path.split(/[\\/]/).includes('fixtures') }).sort()
if (files.length === 0) {
  console.error('run-tests: no test files found under test/')
  process.exit(1)
}

let overall
const testsPerFile = new Map()
const stream = run({ files, concurrency: 2 })
stream.on('test:summary', (summary) => {
  if (summary.file === undefined) overall = summary
  else testsPerFile.set(summary.file, summary.counts.tests)
})
stream.compose(spec).pipe(process.stdout)
stream.once('end', () => {
  const idle = files.filter((file) => !(testsPerFile.get(resolve(file)) > 0))
  if (idle.length > 0) console.error(`run-tests: ${idle.length} file(s) ran no test: ${idle.join(', ')}`)
  if (overall === undefined || !overall.success || idle.length > 0) process.exitCode = 1
})
