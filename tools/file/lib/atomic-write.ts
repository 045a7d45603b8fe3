// Writes a workspace file atomically: a temp file with a recognisable random name in the same
// folder, fsync, rename over the target. A reader sees the old or the new content, never half; a
// failure leaves the target as it was and no temp file behind. The folder is held open and checked
// to be inside the workspace first, and the temp file is created and renamed through that held
// folder (confine.ts), so a folder swapped for a link meanwhile cannot make either land outside.
// Missing parent folders are created one by one the same way, each checked to be a real folder.
import type { Stats } from 'node:fs'
import { lstat, mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join, relative, sep } from 'node:path'
import { checkOpenedInside, holdFolder } from './confine.ts'
import { FileToolError, showPath } from './errors.ts'
import type { ResolvedPath } from './paths.ts'
import { tempNameFor } from './temp-names.ts'
import type { Workspace } from './workspace.ts'

/** Creates the missing folders above `resolved` and returns them, workspace-relative. */
export async function ensureParentFolders (workspace: Workspace, resolved: ResolvedPath): Promise<string[]> {
  const parts = relative(workspace.real, dirname(resolved.real)).split(sep).filter((part) => part !== '')
  const created: string[] = []
  let current = workspace.real
  for (const part of parts) {
    // mkdir through the held parent: it cannot create a folder anywhere else.
    const parent = await holdFolder(current, workspace.real, resolved.input)
    let stats: Stats
    try {
      try {
        await mkdir(parent.at(part))
        created.push(relative(workspace.real, join(current, part)).split(sep).join('/'))
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      stats = await lstat(parent.at(part))
    } finally {
      await parent.close()
    }
    // Whatever is there now must be a plain folder: a link or file raced in is refused.
    if (!stats.isDirectory()) {
      throw new FileToolError(`Refused path ${showPath(resolved.input)}: ${showPath(relative(workspace.real, join(current, part)))} is not a folder`, { path: resolved.input })
    }
    current = join(current, part)
  }
  return created
}

/**
 * Replaces `target` with `data`. `previous` (the target's stats, when it exists) keeps its
 * permission bits on the new file. `root` is the real workspace root the folder must be inside.
 */
export async function writeFileAtomic (target: string, data: string | Uint8Array, previous?: Stats, root = dirname(target)): Promise<void> {
  const folder = await holdFolder(dirname(target), root, target)
  const temp = folder.at(tempNameFor(basename(target)))
  let handle: FileHandle | undefined
  try {
    // 'wx' = O_CREAT | O_EXCL: fails rather than follow anything already at the temp name.
    handle = await open(temp, 'wx', 0o666)
    await checkOpenedInside(handle, temp, root, target)
    if (previous !== undefined) await handle.chmod(previous.mode & 0o7777)
    await handle.writeFile(data)
    await handle.sync()
    await handle.close()
    handle = undefined
    await rename(temp, folder.at(basename(target)))
    await folder.sync()
  } catch (error) {
    await handle?.close().catch(() => {})
    await unlink(temp).catch(() => {})
    throw error
  } finally {
    await folder.close()
  }
}
