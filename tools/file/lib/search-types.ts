// What a search of search_files is asked and answers, shared by the engine (search.ts) and the
// parts it drives (search-contents.ts, search-progress.ts).
import type { WalkCounters } from './walk.ts'

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
