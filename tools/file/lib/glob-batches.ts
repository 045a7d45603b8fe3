// Globs of a search (the name pattern, file_glob) are matched on a pooled thread, a batch of
// walked files at a time: picomatch compiles a glob of many `*` to a regular expression that can
// backtrack for minutes on a long name, which must never run on the gateway's thread.
import picomatch from 'picomatch'
import { FILE_LIMITS } from './limits.ts'
import { matchPaths } from './regex-pool.ts'
import type { GlobSpec } from './regex-thread.ts'
import type { SearchProgress } from './search-progress.ts'
import type { WalkedFile } from './walk.ts'

const BATCH = 256
const KILL_GRACE_MS = 250

/** A glob tested on the path relative to the search folder, or on the base name when it has no '/'. */
export function globSpec (glob: string): GlobSpec {
  const regex = picomatch.makeRe(glob, { dot: true })
  return { glob, source: regex.source, flags: regex.flags, basename: !glob.includes('/') }
}

async function * inBatches (files: AsyncIterable<WalkedFile>): AsyncGenerator<WalkedFile[]> {
  let batch: WalkedFile[] = []
  for await (const file of files) {
    batch.push(file)
    if (batch.length >= BATCH) {
      yield batch
      batch = []
    }
  }
  if (batch.length > 0) yield batch
}

/**
 * Every walked file with whether all `globs` match its path (as `relativeOf` gives it); every file
 * is a hit when there is no glob. Ends early, setting `progress.stoppedBy`, when the deadline or
 * the signal stops the matching.
 */
export async function * withGlobHits (
  files: AsyncIterable<WalkedFile>, globs: GlobSpec[], relativeOf: (file: WalkedFile) => string, progress: SearchProgress, signal: AbortSignal
): AsyncGenerator<{ file: WalkedFile, hit: boolean }> {
  if (globs.length === 0) {
    for await (const file of files) yield { file, hit: true }
    return
  }
  for await (const batch of inBatches(files)) {
    const outcome = await matchPaths({ globs, paths: batch.map(relativeOf), deadline: progress.deadline }, { deadline: progress.deadline, graceMs: KILL_GRACE_MS, signal })
    const hits = 'killed' in outcome ? [] : outcome.hits
    for (let i = 0; i < hits.length; i++) yield { file: batch[i], hit: hits[i] }
    if ('killed' in outcome && outcome.killed === 'aborted') progress.stoppedBy = 'the call was cancelled'
    else if ('killed' in outcome || outcome.timedOut) {
      progress.stoppedBy = `the ${FILE_LIMITS.searchDeadlineMs} ms time limit was reached while matching paths against the glob (it may backtrack on long names; use fewer wildcards)`
    }
    if (progress.stoppedBy !== undefined) return
  }
}
