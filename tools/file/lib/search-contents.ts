// The content side of search_files: reads the walked files in order, checks each opened file is
// still inside the workspace, skips what is not text, and has a pooled thread (regex-pool.ts) match
// them a batch at a time. A batch costs one round trip to the thread where a file each cost one
// (a message and a thread wake-up each, more than matching a small file), and the next
// batch is read while the thread matches the last. What a batch holds is bounded (BATCH_TEXTS
// files, about BATCH_CHARS characters), and so is what is read ahead.
//
// Results are taken in walk order, and files count (scanned or skipped) only up to where the
// search stops, so a page is the same whatever the batching. One thing a batch changes: a thread
// killed on a line that backtracks catastrophically takes with it the matches of the files before
// that one in its batch. Such a result already says it stopped early and may be incomplete, and
// names the file that held the thread.
import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import { binaryReason } from './binary.ts'
import { checkOpenedInside } from './confine.ts'
import { readWhole } from './file-io.ts'
import { FILE_LIMITS } from './limits.ts'
import { matchTexts, type Killed } from './regex-pool.ts'
import type { FileMatches, TextsReply } from './regex-thread.ts'
import type { SearchProgress } from './search-progress.ts'
import type { SearchRequest } from './search-types.ts'
import type { WalkedFile } from './walk.ts'

export type Hits = AsyncGenerator<{ file: WalkedFile, hit: boolean }>

const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW
const KILL_GRACE_MS = 250
/** Files being read at once ahead of the batch being filled: each holds a descriptor and up to searchMaxFileBytes. */
const READ_AHEAD = 4
/** A batch ends at this many texts, or once its texts reach BATCH_CHARS characters. */
const BATCH_TEXTS = 32
const BATCH_CHARS = 1024 * 1024

/** A file's text, or why it is skipped; counted only when the search reaches it in order. */
type Candidate = { text: string } | { skipped: string }

interface ReadFile { file: WalkedFile, candidate: Candidate }

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
    // A read ahead may be dropped unawaited when the search stops: it must never reject.
    await handle.close().catch(() => {})
  }
}

/**
 * The hits read in walk order, READ_AHEAD at once (each file's open, read and close are three trips
 * through libuv's pool; several overlap), gathered in batches. Reads started past where the search
 * stops are dropped.
 */
async function * readBatches (hits: Hits, root: string): AsyncGenerator<ReadFile[]> {
  const reading: Array<{ file: WalkedFile, read: Promise<Candidate> }> = []
  let batch: ReadFile[] = []
  let texts = 0
  let chars = 0
  const settleOldest = async (): Promise<void> => {
    const { file, read } = reading.shift() as { file: WalkedFile, read: Promise<Candidate> }
    const candidate = await read
    batch.push({ file, candidate })
    if ('text' in candidate) {
      texts += 1
      chars += candidate.text.length
    }
  }
  for await (const { file, hit } of hits) {
    if (!hit) continue
    reading.push({ file, read: readCandidate(file, root) })
    if (reading.length >= READ_AHEAD) await settleOldest()
    if (texts >= BATCH_TEXTS || chars >= BATCH_CHARS) {
      yield batch
      batch = []
      texts = 0
      chars = 0
    }
  }
  while (reading.length > 0) await settleOldest()
  if (batch.length > 0) yield batch
}

/** Contents: only the files read (past file_glob, neither binary, too large nor unreadable) count against the files bound. */
export async function searchContents (hits: Hits, request: SearchRequest, progress: SearchProgress): Promise<void> {
  let matching: { batch: ReadFile[], reply: Promise<TextsReply | Killed> } | undefined
  // Each pass reads the next batch while the thread matches the one sent before it.
  for await (const batch of readBatches(hits, request.root)) {
    if (matching !== undefined && !takeResults(matching.batch, await matching.reply, request, progress)) return
    matching = undefined
    if (progress.stopped()) return
    const texts = batch.flatMap(({ candidate }) => 'text' in candidate ? [candidate.text] : [])
    const reply = texts.length === 0
      ? Promise.resolve({ files: [], timedOut: false })
      : matchTexts(
        { source: request.pattern, flags: '', texts, mode: request.outputMode, wanted: progress.wantedMatches, deadline: progress.deadline },
        { deadline: progress.deadline, graceMs: KILL_GRACE_MS, signal: request.signal }
      )
    // Awaited in the next pass, unless the reading fails first: then nobody waits for it.
    reply.catch(() => {})
    matching = { batch, reply }
  }
  if (matching !== undefined) takeResults(matching.batch, await matching.reply, request, progress)
}

/** Counts a batch's files and adds their results, in order; false when the search ends in it. */
function takeResults (batch: ReadFile[], reply: TextsReply | Killed, request: SearchRequest, progress: SearchProgress): boolean {
  let text = 0
  for (const { file, candidate } of batch) {
    // A killed thread is past the deadline: the reason to give is the file that held it.
    if (!('killed' in reply) && progress.stopped()) return false
    if (progress.filesScanned >= FILE_LIMITS.searchMaxFiles) {
      progress.stoppedBy = `the limit of ${FILE_LIMITS.searchMaxFiles} files read was reached`
      return false
    }
    if ('skipped' in candidate) {
      progress.skipped[candidate.skipped] = (progress.skipped[candidate.skipped] ?? 0) + 1
      continue
    }
    progress.filesScanned += 1
    if ('killed' in reply) {
      // Matched before the thread was killed: its matches went with the thread.
      if (reply.at !== undefined && text < reply.at) {
        text += 1
        continue
      }
      progress.stoppedBy = killedReason(reply, file.relative)
      return false
    }
    const matches = reply.files[text]
    text += 1
    // The thread stops after the file that fills the page, so the page is full before this.
    if (matches === undefined) return false
    if (matches.count > 0) addMatches(file.relative, candidate.text, matches, request, progress)
    if (reply.timedOut && text === reply.files.length) {
      progress.stoppedBy = `the ${FILE_LIMITS.searchDeadlineMs} ms time limit was reached while matching ${file.relative}`
      return false
    }
    if (progress.more) return false
  }
  return true
}

function killedReason (reply: Killed, path: string): string {
  if (reply.killed === 'aborted') return 'the call was cancelled'
  if (reply.at === undefined) return `the ${FILE_LIMITS.searchDeadlineMs} ms time limit was reached`
  return `the ${FILE_LIMITS.searchDeadlineMs} ms time limit was reached while matching ${path} (the pattern may backtrack catastrophically; simplify it)`
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
