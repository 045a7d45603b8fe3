// Runs the test files of a tier (test/tiers.mjs) with node:test, each file in its own process, two at
// a time; Node 24 strips the TypeScript types itself. `node --test` exits 0 when its pattern matches
// nothing, counts a file that registers no test as one passing test, and waits without end for a file
// that never finishes, so this refuses an empty file list, fails naming any file that ran no test,
// and stops a file past its tier's time limit, failing with its name.
//
//   node scripts/run-tests.mjs [--tier=fast|system|all] [file ...]
//
// Default: the fast tier. Files named run whatever their tier, each under its own tier's limit.
// TEST_FILE_TIMEOUT_MS sets one limit for every file; TEST_CONCURRENCY how many files run at once.
import { globSync, readFileSync } from 'node:fs'
import { matchesGlob, relative, resolve } from 'node:path'
import { run } from 'node:test'
import { spec } from 'node:test/reporters'
import { FILE_TIME_LIMIT_MS, SYSTEM_TESTS } from '../test/tiers.mjs'

// A file stopped at its limit gets SIGTERM, then this long before SIGKILL (its process tree).
const KILL_GRACE_MS = 5_000

function fail (message) {
  console.error(`run-tests: ${message}`)
  process.exit(1)
}

function positiveInteger (name, fallback) {
  const text = process.env[name]
  if (text === undefined || text === '') return fallback
  const value = Number(text)
  if (!Number.isInteger(value) || value <= 0) fail(`${name} must be a positive integer, not "${text}"`)
  return value
}

/** Each test file's tier; an entry of SYSTEM_TESTS that matches no file fails the run (a file moved away). */
function tierOf (files) {
  const stale = SYSTEM_TESTS.filter((entry) => !files.some((file) => matchesGlob(file, entry)))
  if (stale.length > 0) fail(`test/tiers.mjs names what is no test file: ${stale.join(', ')}`)
  return new Map(files.map((file) => [file, SYSTEM_TESTS.some((entry) => matchesGlob(file, entry)) ? 'system' : 'fast']))
}

function selectFiles (args) {
  const tierArg = args.find((arg) => arg.startsWith('--tier='))
  const tier = tierArg === undefined ? 'fast' : tierArg.slice('--tier='.length)
  if (!['fast', 'system', 'all'].includes(tier)) fail(`unknown tier "${tier}": fast, system or all`)
  const named = args.filter((arg) => !arg.startsWith('--'))
  const all = globSync('test/**/*.test.ts', { exclude: (path) => path.split(/[\\/]/).includes('fixtures') }).sort()
  const tiers = tierOf(all)
  if (named.length > 0) return { label: 'the files named', files: named, tiers }
  return { label: `the ${tier} tier`, files: all.filter((file) => tier === 'all' || tiers.get(file) === tier), tiers }
}

/** Linux only (elsewhere none): the live processes under `pid`, with their start times to recheck before a kill. */
function processTree (pid) {
  let entries
  try {
    entries = globSync('/proc/[0-9]*/stat').map((path) => {
      // The command name (field 2) may hold spaces and parentheses: split after its last ')'.
      const text = readFileSync(path, 'utf8')
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
      return { pid: Number(path.split('/')[2]), ppid: Number(fields[1]), start: fields[19] }
    })
  } catch {
    return []
  }
  const tree = entries.filter((entry) => entry.pid === pid)
  for (let i = 0; i < tree.length; i++) tree.push(...entries.filter((entry) => entry.ppid === tree[i].pid))
  return tree
}

/** The process node:test started for `file`: a child of this one whose arguments end with it. */
function fileProcess (file) {
  for (const child of processTree(process.pid).slice(1)) {
    try {
      const args = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
      if (args.at(-1) === file || resolve(args.at(-1) ?? '') === resolve(file)) return child.pid
    } catch {}
  }
  return undefined
}

function killTree (tree) {
  for (const { pid, start } of tree) {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
      if (text.slice(text.lastIndexOf(')') + 2).split(' ')[19] === start) process.kill(pid, 'SIGKILL')
    } catch {}
  }
}

function stoppedMessage (file, limitMs) {
  return `${file} did not finish within ${limitMs / 1000} s (its tier's limit in test/tiers.mjs, or TEST_FILE_TIMEOUT_MS): stopped`
}

/** Runs one file; its spec output is written whole when it ends, so that files never interleave. */
async function runFile (file, limitMs) {
  const abort = new AbortController()
  const started = performance.now()
  let timedOut = false
  let summary
  let fileSummary
  const timer = setTimeout(() => {
    timedOut = true
    const pid = fileProcess(file)
    const tree = pid === undefined ? [] : processTree(pid)
    abort.abort(new Error(stoppedMessage(file, limitMs)))
    // Unref'd: it keeps no run open once the tree is gone; one that lives on keeps the run open itself.
    setTimeout(() => killTree(tree), KILL_GRACE_MS).unref()
  }, limitMs)
  const stream = run({ files: [file], signal: abort.signal })
  // The run's summary counts a file that registers no test as one passing test; the file's own does not.
  stream.on('test:summary', (event) => { if (event.file === undefined) summary = event; else fileSummary = event })
  const chunks = []
  // The run's own totals (diagnostics of no file) are left out: the totals of all files end the run.
  const output = stream.filter((event) => !(event.type === 'test:diagnostic' && event.data.file === undefined)).compose(spec)
  for await (const chunk of output) chunks.push(chunk)
  clearTimeout(timer)
  const seconds = (performance.now() - started) / 1000
  const counts = fileSummary?.counts ?? summary?.counts
  process.stdout.write(`# ${file} (${seconds.toFixed(1)} s, ${counts?.tests ?? 0} tests)\n${chunks.join('')}`)
  return { file, seconds, timedOut, counts, ranTests: fileSummary?.counts.tests > 0, success: summary?.success === true && !timedOut }
}

async function runAll (files, limitOf, concurrency) {
  const results = []
  const queue = [...files]
  const worker = async () => {
    while (queue.length > 0) {
      const file = queue.shift()
      results.push(await runFile(file, limitOf(file)))
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker))
  return results
}

function report (label, results, limitOf, seconds) {
  const total = (key) => results.reduce((sum, result) => sum + (result.counts?.[key] ?? 0), 0)
  console.log(`\nrun-tests: ${label}, ${results.length} files, ${total('tests')} tests: ${total('passed')} passed, ` +
    `${total('failed')} failed, ${total('cancelled')} cancelled, ${total('skipped')} skipped, ${total('todo')} todo, in ${seconds.toFixed(1)} s`)
  const slowest = [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 5)
  if (results.length > 1) console.log(`run-tests: slowest: ${slowest.map((result) => `${result.file} ${result.seconds.toFixed(1)} s`).join(', ')}`)
  const problems = []
  for (const result of results.filter((result) => result.timedOut)) {
    problems.push(stoppedMessage(result.file, limitOf(result.file)))
  }
  const idle = results.filter((result) => !result.timedOut && !result.ranTests).map((result) => result.file)
  if (idle.length > 0) problems.push(`${idle.length} file(s) ran no test: ${idle.join(', ')}`)
  const failed = results.filter((result) => !result.success && !result.timedOut).map((result) => result.file)
  if (failed.length > 0) problems.push(`${failed.length} file(s) failed: ${failed.join(', ')}`)
  for (const problem of problems) console.error(`run-tests: ${problem}`)
  return problems.length === 0
}

const { label, files, tiers } = selectFiles(process.argv.slice(2))
if (files.length === 0) fail(`no test files in ${label} under test/`)
const fixedLimit = positiveInteger('TEST_FILE_TIMEOUT_MS', undefined)
const limitOf = (file) => fixedLimit ?? FILE_TIME_LIMIT_MS[tiers.get(relative('.', file)) ?? 'system']
const started = performance.now()
const results = await runAll(files, limitOf, positiveInteger('TEST_CONCURRENCY', 2))
if (!report(label, results, limitOf, (performance.now() - started) / 1000)) process.exitCode = 1
// A process that outlived even SIGKILL's reach (no /proc) must not keep the run from ending.
setTimeout(() => process.exit(), KILL_GRACE_MS * 2).unref()
