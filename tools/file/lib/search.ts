// The engine of search_files: walks the files under a folder, matches names with picomatch globs or
// contents with a regular expression (both in a worker), and collects one page of results. Bounded by a
// deadline, the caller's signal and a count of files; says which bound stopped it.
import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import { binaryReason } from './binary.ts'
import { checkOpenedInside } from './confine.ts'
import { readWhole } from './file-io.ts'
import { globSpec, withGlobHits } from './glob-batches.ts'
import { FILE_LIMITS } from './limits.ts'
import { RegexMatcher, type FileMatches } from './regex-worker.ts'
import { SearchProgress } from './search-progress.ts'
import { walkFiles, type WalkCounters, type WalkedFile } from './walk.ts'
import type { Workspace } from './workspace.ts'

export type OutputMode = 'content' | 'files_with_matches' | 'count'

export interface SearchRequest {
  target: 'content' | 'files'
  /** A regular expression (content) or a glob (files); already validated. */
  pattern: string
  fileGlob: string | undefined
  outputMode: OutputMode
  context: number
  offset: number
  limit: number
  start: { relative: string, real: string, isFile: boolean }
  /** The workspace root, real. */
  root: string
  signal: AbortSignal
}

/** One result of a page: a matching line (with its context), a file, or a file with its count. */
export type SearchItem =
  | { kind: 'line', path: string, line: number, window: Array<[number, string]> }
  | { kind: 'file', path: string }
  | { kind: 'count', path: string, count: number }

export interface SearchOutcome {
  /** The page: results number `offset` to `offset + limit - 1`. */
  items: SearchItem[]
  /** A result exists after this page. */
  more: boolean
  /** Why the search stopped before looking at everything, when it did. */
  stoppedBy: string | undefined
  filesScanned: number
  skipped: Record<string, number>
  counters: WalkCounters
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW
const KILL_GRACE_MS = 250
/** Files whose reading may run ahead of the matching: each holds a descriptor and up to searchMaxFileBytes meanwhile. */
const READ_AHEAD = 4

/** A walked path relative to the search start, which is what globs are matched against. */
function relativeTo (start: SearchRequest['start'], path: string): string {
  if (start.isFile) return path.slice(path.lastIndexOf('/') + 1)
  return start.relative === '.' ? path : path.slice(start.relative.length + 1)
}

/** A file's text, or why it is skipped; counted only when the search reaches it in order. */
type Candidate = { text: string } | { skipped: string }

async function readCandidate (file: WalkedFile, root: string): Promise<Candidate> {
  let handle
  try {
    handle = await open(file.real, READ_FLAGS)
  } catch {
    return { skipped: 'unreadable' }
  }
  try {
    // Opened where the walk found it, inside the workspace: a folder swapped for a link is not followed.
    const stats = await checkOpenedInside(handle, file.real, root, file.relative)
    if (!stats.isFile()) return { skipped: 'not_regular' }
    if (stats.nlink > 1) return { skipped: 'hard_linked' }
    if (stats.size > FILE_LIMITS.searchMaxFileBytes) return { skipped: 'too_large' }
    // The size is the fstat's of the check: one read, no second fstat.
    const buffer = await readWhole(handle, stats.size, FILE_LIMITS.searchMaxFileBytes)
    if (buffer.length > FILE_LIMITS.searchMaxFileBytes) return { skipped: 'too_large' }
    if (binaryReason(buffer.subarray(0, FILE_LIMITS.sniffBytes)) !== undefined) return { skipped: 'binary' }
    return { text: buffer.toString('utf8') }
  } catch {
    return { skipped: 'unreadable' }
  } finally {
    await handle.close()
  }
}

/**
 * The hits with their reads started up to READ_AHEAD files ahead, in walk order: each file's
 * open, read and close (three trips through libuv's pool) overlap the matching of the files
 * before it instead of waiting for it. Reads started past where the search stops are dropped.
 */
async function * readAhead (hits: Hits, root: string): AsyncGenerator<{ file: WalkedFile, read: Promise<Candidate> }> {
  const queue: Array<{ file: WalkedFile, read: Promise<Candidate> }> = []
  for await (const { file, hit } of hits) {
    if (!hit) continue
    queue.push({ file, read: readCandidate(file, root) })
    if (queue.length >= READ_AHEAD) yield queue.shift() as { file: WalkedFile, read: Promise<Candidate> }
  }
  yield * queue
}

export async function runSearch (workspace: Workspace, request: SearchRequest): Promise<SearchOutcome> {
  const progress = new SearchProgress(request.offset, request.limit, request.signal)
  const files = walkFiles(workspace, request.start, progress.counters, () => progress.stopped())
  const globs = [request.target === 'files' ? request.pattern : undefined, request.fileGlob].filter((glob) => glob !== undefined).map(globSpec)
  const matcher = new RegexMatcher(request.target === 'content' ? request.pattern : undefined, '', globs)
  try {
    const hits = withGlobHits(files, globs.length > 0 ? matcher : undefined, (file) => relativeTo(request.start, file.relative), progress, request.signal)
    if (request.target === 'files') await searchNames(hits, progress)
    else await searchContents(hits, matcher, request, progress)
  } finally {
    await matcher.close()
  }
  return progress.outcome()
}

type Hits = AsyncGenerator<{ file: WalkedFile, hit: boolean }>

/** Names: every entry visited counts against the files bound, whether its name matches or not. */
async function searchNames (files: Hits, progress: SearchProgress): Promise<void> {
  for await (const { file, hit } of files) {
    if (progress.stopped()) break
    if (progress.filesScanned >= FILE_LIMITS.searchMaxFiles) {
      progress.stoppedBy = `the limit of ${FILE_LIMITS.searchMaxFiles} files visited was reached`
      break
    }
    progress.filesScanned += 1
    if (hit && !progress.add({ kind: 'file', path: file.relative })) break
  }
}

/** Contents: only the files read (past file_glob, neither binary, too large nor unreadable) count against the files bound. */
async function searchContents (files: Hits, matcher: RegexMatcher, request: SearchRequest, progress: SearchProgress): Promise<void> {
  for await (const { file, read } of readAhead(files, request.root)) {
    if (progress.stopped()) break
    if (progress.filesScanned >= FILE_LIMITS.searchMaxFiles) {
      progress.stoppedBy = `the limit of ${FILE_LIMITS.searchMaxFiles} files read was reached`
      break
    }
    const candidate = await read
    if ('skipped' in candidate) {
      progress.skipped[candidate.skipped] = (progress.skipped[candidate.skipped] ?? 0) + 1
      continue
    }
    progress.filesScanned += 1
    if (!await searchText(matcher, file.relative, candidate.text, request, progress)) break
  }
}

/** Matches one file's text and counts its results; false when the search ends with this file. */
async function searchText (matcher: RegexMatcher, path: string, text: string, request: SearchRequest, progress: SearchProgress): Promise<boolean> {
  const outcome = await matcher.match(text, {
    cap: request.outputMode === 'content' ? progress.wantedMatches : 0,
    firstOnly: request.outputMode === 'files_with_matches',
    deadline: progress.deadline,
    graceMs: KILL_GRACE_MS,
    signal: request.signal
  })
  if ('killed' in outcome) {
    progress.stoppedBy = outcome.killed === 'aborted'
      ? 'the call was cancelled'
      : `the ${FILE_LIMITS.searchDeadlineMs} ms time limit was reached while matching ${path} (the pattern may backtrack catastrophically; simplify it)`
    return false
  }
  if (outcome.count > 0) addMatches(path, text, outcome, request, progress)
  if (outcome.timedOut) {
    progress.stoppedBy = `the ${FILE_LIMITS.searchDeadlineMs} ms time limit was reached while matching ${path}`
    return false
  }
  return !progress.more
}

/** The results of one file with matches, as the output mode wants them. */
function addMatches (path: string, text: string, matches: FileMatches, request: SearchRequest, progress: SearchProgress): void {
  if (request.outputMode === 'content') {
    const lines = text.split('\n')
    // The empty piece after a final newline is not a line.
    if (text.endsWith('\n')) lines.pop()
    for (const n of matches.lines) {
      if (!progress.add({ kind: 'line', path, line: n + 1, window: contextWindow(lines, n, request.context) })) break
    }
  } else if (request.outputMode === 'files_with_matches') {
    progress.add({ kind: 'file', path })
  } else {
    progress.add({ kind: 'count', path, count: matches.count })
  }
}

/** Line `n` (0-based) with `context` lines either side, numbered from 1, without their CR. */
function contextWindow (lines: readonly string[], n: number, context: number): Array<[number, string]> {
  const window: Array<[number, string]> = []
  for (let at = Math.max(0, n - context); at <= Math.min(lines.length - 1, n + context); at++) {
    window.push([at + 1, lines[at].replace(/\r$/, '')])
  }
  return window
}

function cutLine (text: string): string {
  const max = FILE_LIMITS.searchMaxLineChars
  if (text.length <= max) return text
  const head = text.slice(0, max)
  return `${/[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head}… [${text.length} chars]`
}

/**
 * Renders matching lines grep-style: `path:LINE:text` for matches, `path-LINE-text` for context,
 * `--` between separate groups when `separators` (there is context). Items of one file whose windows touch share
 * a group. Stops before `budget` characters (always taking one item); returns how many it used.
 */
export function renderLines (items: Array<Extract<SearchItem, { kind: 'line' }>>, budget: number, separators: boolean): { text: string, used: number } {
  const out: string[] = []
  let size = 0
  let used = 0
  let lastPath: string | undefined
  let lastLine = -1
  // Where each line of the current group sits in `out`: a match shown earlier as context is re-marked.
  let rowOf = new Map<number, number>()
  const render = (path: string, n: number, text: string, isMatch: boolean): string =>
    isMatch ? `${path}:${n}:${cutLine(text)}` : `${path}-${n}-${cutLine(text)}`
  for (const item of items) {
    const continues = item.path === lastPath && item.window[0][0] <= lastLine + 1
    const added: Array<{ row: string, line?: number }> = []
    if (!continues && out.length > 0 && separators) added.push({ row: '--' })
    for (const [n, text] of item.window) {
      if (continues && n <= lastLine) continue
      added.push({ row: render(item.path, n, text, n === item.line), line: n })
    }
    const cost = added.reduce((sum, { row }) => sum + row.length + 1, 0)
    if (used > 0 && size + cost > budget) break
    if (!continues) rowOf = new Map()
    const earlier = rowOf.get(item.line)
    if (continues && earlier !== undefined) {
      out[earlier] = render(item.path, item.line, item.window.find(([n]) => n === item.line)?.[1] ?? '', true)
    }
    for (const { row, line } of added) {
      out.push(row)
      if (line !== undefined) rowOf.set(line, out.length - 1)
    }
    size += cost
    used += 1
    lastPath = item.path
    lastLine = Math.max(continues ? lastLine : -1, item.window[item.window.length - 1][0])
  }
  return { text: out.join('\n'), used }
}
