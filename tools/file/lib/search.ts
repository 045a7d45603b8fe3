// The engine of search_files: walks the files under a folder, matches names with picomatch globs or
// contents with a regular expression (both on pooled threads, regex-pool.ts), and collects one page
// of results. Bounded by a deadline, the caller's signal and a count of files; says which bound
// stopped it. Contents are read and matched by search-contents.ts.
import { globSpec, withGlobHits } from './glob-batches.ts'
import { FILE_LIMITS } from './limits.ts'
import { searchContents, type Hits } from './search-contents.ts'
import { SearchProgress } from './search-progress.ts'
import { walkFiles } from './walk.ts'
import type { Workspace } from './workspace.ts'
import type { SearchItem, SearchOutcome, SearchRequest } from './search-types.ts'

export type { OutputMode, SearchItem, SearchOutcome, SearchRequest } from './search-types.ts'

/** A walked path relative to the search start, which is what globs are matched against. */
function relativeTo (start: SearchRequest['start'], path: string): string {
  if (start.isFile) return path.slice(path.lastIndexOf('/') + 1)
  return start.relative === '.' ? path : path.slice(start.relative.length + 1)
}

export async function runSearch (workspace: Workspace, request: SearchRequest): Promise<SearchOutcome> {
  const progress = new SearchProgress(request.offset, request.limit, request.signal)
  const files = walkFiles(workspace, request.start, progress.counters, () => progress.stopped())
  const globs = [request.target === 'files' ? request.pattern : undefined, request.fileGlob].filter((glob) => glob !== undefined).map(globSpec)
  const hits = withGlobHits(files, globs, (file) => relativeTo(request.start, file.relative), progress, request.signal)
  if (request.target === 'files') await searchNames(hits, progress)
  else await searchContents(hits, request, progress)
  return progress.outcome()
}

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
