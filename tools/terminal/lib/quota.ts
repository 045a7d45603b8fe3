// The terminal under the file tools' workspace quota (WORKSPACE_MAX_BYTES). Before a command its
// largest file is cut to the room left (RLIMIT_FSIZE, with prlimit); after it the workspace is
// measured again, so the file tools refuse or accept by what is really on disk. The file size limit
// is per file: several files, each within the room, can together pass the quota, and commands
// running at once each get the same room. That is not prevented, only reported (quotaNote) and then
// enforced on the file tools, which refuse to grow a workspace past its quota.
import type { Quota, WorkspaceUsage } from '../../file/lib/workspace-usage.ts'

/** Bytes a command may still add before the workspace reaches its quota; 0 when it is there or past it. */
export function roomLeft (usage: Pick<WorkspaceUsage, 'bytes'>, quota: Quota): number {
  return Math.max(0, quota.maxBytes - usage.bytes)
}

/** What the model is told when the workspace is full or past its quota; undefined when there is room. */
export function quotaNote (usage: Pick<WorkspaceUsage, 'bytes'>, quota: Quota): string | undefined {
  if (usage.bytes < quota.maxBytes) return undefined
  const where = usage.bytes > quota.maxBytes ? 'past' : 'at'
  return `The workspace now holds ${usage.bytes} bytes, ${where} its quota of ${quota.maxBytes} bytes (WORKSPACE_MAX_BYTES): ` +
    'commands cannot write to files, and write_file and patch refuse to add bytes, until files are deleted.'
}

/** The count brought up to what a command left on disk; the note when that is at or past the quota. */
export async function measureAfter (usage: WorkspaceUsage, quota: Quota): Promise<string | undefined> {
  try {
    await usage.remeasure()
  } catch {
    return undefined // the next write of a file tool measures again before it refuses
  }
  return quotaNote(usage, quota)
}
