// What runs on a regular-expression thread of the pool (regex-pool.ts): the content pattern of a
// search over lines, and its globs (compiled by picomatch to regular expressions) over paths. A
// pathological pattern (catastrophic backtracking, e.g. `^(a+)+$` on a long line, or a glob of many
// `*` against a long name) blocks whatever thread runs it, and no timer can interrupt synchronous
// code; on a thread of its own, the gateway's thread stays free and kills it at the deadline.
//
// Plain JavaScript evaluated by the worker: the same source serves the TypeScript sources and the
// compiled build, with no module file to locate. Each job brings its own pattern (V8 keeps compiled
// expressions by source and flags, so compiling again for every job of a search is a cache hit).
//
// texts: each text split into lines and each line tested, checking the deadline every 256 lines;
// stops after the text with which `wanted` results are reached (matching lines for "content",
// files with a match otherwise), since the search needs none after. Before each text, its index is
// stored in `at` (shared memory): when the thread has to be killed, the caller learns which text
// held it. paths: each path tested against every glob, checking the deadline every 16.

/** A glob as picomatch compiles it; matched as picomatch does (the glob itself, or the regex on the path or its base name). */
export interface GlobSpec { glob: string, source: string, flags: string, basename: boolean }

/** What a search wants of each text: lines (up to `wanted` of them), whether it matches, or how many lines match. */
export type TextMode = 'content' | 'files_with_matches' | 'count'

export interface TextsJob { kind: 'texts', source: string, flags: string, texts: string[], mode: TextMode, wanted: number, deadline: number }
export interface PathsJob { kind: 'paths', globs: GlobSpec[], paths: string[], deadline: number }

export interface FileMatches {
  /** 0-based indexes of matching lines ("content" only), at most the results still wanted. */
  lines: number[]
  /** Matching lines found in the file: all of them for "count", at least 1 when it matches otherwise. */
  count: number
}

export interface TextsReply {
  /** One per text matched, in order; fewer than the texts when `wanted` was reached or time ran out. */
  files: FileMatches[]
  /** The thread stopped on its own at the deadline, between lines of the last text in `files`. */
  timedOut: boolean
}

export interface PathsReply {
  /** One per path tested, in order: whether every glob matches it; shorter than the paths when timed out. */
  hits: boolean[]
  timedOut: boolean
}

export const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const at = workerData.at
const globMatches = (g, path) => path === g.glob || g.regex.test(g.basename ? path.slice(path.lastIndexOf('/') + 1) : path)
function matchPaths (job) {
  const globs = job.globs.map((g) => ({ glob: g.glob, basename: g.basename, regex: new RegExp(g.source, g.flags) }))
  const hits = []
  for (const path of job.paths) {
    if ((hits.length & 15) === 15 && Date.now() > job.deadline) return { hits, timedOut: true }
    hits.push(globs.every((g) => globMatches(g, path)))
  }
  return { hits, timedOut: false }
}
function matchText (regex, text, mode, wanted, deadline) {
  const lines = []
  let count = 0
  let index = 0
  let start = 0
  while (start < text.length) {
    let end = text.indexOf('\\n', start)
    if (end === -1) end = text.length
    let line = text.slice(start, end)
    if (line.endsWith('\\r')) line = line.slice(0, -1)
    if (regex.test(line)) {
      count += 1
      if (mode === 'files_with_matches') break
      if (mode === 'content') {
        lines.push(index)
        if (lines.length >= wanted) break
      }
    }
    index += 1
    start = end + 1
    if ((index & 255) === 0 && Date.now() > deadline) return { lines, count, timedOut: true }
  }
  return { lines, count, timedOut: false }
}
function matchTexts (job) {
  const regex = new RegExp(job.source, job.flags)
  const files = []
  let wanted = job.wanted
  for (let i = 0; i < job.texts.length && wanted > 0; i++) {
    Atomics.store(at, 0, i)
    const found = matchText(regex, job.texts[i], job.mode, wanted, job.deadline)
    files.push({ lines: found.lines, count: found.count })
    if (found.timedOut) return { files, timedOut: true }
    wanted -= job.mode === 'content' ? found.lines.length : Math.min(found.count, 1)
  }
  return { files, timedOut: false }
}
parentPort.on('message', (job) => parentPort.postMessage(job.kind === 'texts' ? matchTexts(job) : matchPaths(job)))
`
