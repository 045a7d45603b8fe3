// A write of the file tools under the workspace quotas: its bytes and new entries (the file, the
// folders it needs) reserved before anything touches the disk, the missing folders created, the
// write run, and the reservation settled with what was really made. A write that fails leaves no
// folder of its own behind: the folders it created are removed again, deepest first.
import type { ToolConfig } from '../../../src/registry/index.ts'
import { ensureParentFolders, missingParentFolders, removeCreatedFolders } from './atomic-write.ts'
import type { ResolvedPath } from './paths.ts'
import type { Workspace } from './workspace.ts'
import type { Quota } from './workspace-usage.ts'

export function quotaOf (config: Pick<ToolConfig, 'workspaceMaxBytes' | 'workspaceMaxFiles'>): Quota {
  return { maxBytes: config.workspaceMaxBytes, maxEntries: config.workspaceMaxFiles }
}

export interface WritePlan {
  /** How many bytes the workspace grows by (negative when it shrinks). */
  bytes: number
  /** Files the write creates (not replaces). */
  newFiles: number
  /** Targets whose missing parent folders the write creates first. */
  foldersFor?: readonly ResolvedPath[]
}

/** Runs `write` under the quotas; answers the folders it created, workspace-relative. */
export async function countedWrite (workspace: Workspace, quota: Quota, input: string, plan: WritePlan, write: () => Promise<void>): Promise<string[]> {
  const targets = plan.foldersFor ?? []
  let missing = 0
  for (const target of targets) missing += await missingParentFolders(workspace, target)
  const usage = await workspace.usage
  const done = await usage.counted(plan.bytes, plan.newFiles + missing, quota, input, async () => {
    const created: string[] = []
    try {
      for (const target of targets) await ensureParentFolders(workspace, target, created)
      await write()
    } catch (error) {
      await removeCreatedFolders(workspace, created)
      throw error
    }
    return { created, createdEntries: plan.newFiles + created.length }
  })
  return done.created
}
