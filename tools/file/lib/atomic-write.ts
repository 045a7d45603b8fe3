// Writes a workspace file atomically: a temp file with a random name in the same folder, fsync,
// rename over the target. A reader sees the old or the new content, never half; a failure leaves
// the target as it was and no temp file behind. Missing parent folders are created one by one,
// each checked to be a real folder inside the workspace.
import { randomBytes } from 'node:crypto'
import type { Stats } from 'node:fs'
import { lstat, mkdir, open, realpath, rename, unlink, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join, relative, sep } from 'node:path'
import { FileToolError, showPath } from './errors.ts'
import { isInside, type ResolvedPath } from './paths.ts'
import type { Workspace } from './workspace.ts'

/** Creates the missing folders above `resolved` and returns them, workspace-relative. */
export async function ensureParentFolders (workspace: Workspace, resolved: ResolvedPath): Promise<string[]> {
  const parent = dirname(resolved.real)
  const parts = relative(workspace.real, parent).split(sep).filter((part) => part !== '')
  const created: string[] = []
  let current = workspace.real
  for (const part of parts) {
    current = join(current, part)
    try {
      await mkdir(current)
      created.push(relative(workspace.real, current).split(sep).join('/'))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    // Whatever is there now must be a plain folder: a link or file raced in is refused.
    const stats = await lstat(current)
    if (!stats.isDirectory()) {
      throw new FileToolError(`Refused path ${showPath(resolved.input)}: ${showPath(relative(workspace.real, current))} is not a folder`, { path: resolved.input })
    }
  }
  if (!isInside(await realpath(parent), workspace.real)) {
    throw new FileToolError(`Refused path ${showPath(resolved.input)}: its folder leads outside the workspace`, { path: resolved.input })
  }
  return created
}

async function syncFolder (folder: string): Promise<void> {
  // Makes the rename durable; some file systems refuse fsync on a folder, which is not an error here.
  let handle: FileHandle | undefined
  try {
    handle = await open(folder, 'r')
    await handle.sync()
  } catch {} finally {
    await handle?.close().catch(() => {})
  }
}

/**
 * Replaces `target` with `data`. `previous` (the target's stats, when it exists) keeps its
 * permission bits on the new file.
 */
export async function writeFileAtomic (target: string, data: string | Uint8Array, previous?: Stats): Promise<void> {
  const folder = dirname(target)
  const temp = join(folder, `.${Array.from(basename(target)).slice(0, 40).join('')}.${randomBytes(8).toString('hex')}.tmp`)
  let handle: FileHandle | undefined
  try {
    // 'wx' = O_CREAT | O_EXCL: fails rather than follow anything already at the temp name.
    handle = await open(temp, 'wx', 0o666)
    if (previous !== undefined) await handle.chmod(previous.mode & 0o7777)
    await handle.writeFile(data)
    await handle.sync()
    await handle.close()
    handle = undefined
    await rename(temp, target)
  } catch (error) {
    await handle?.close().catch(() => {})
    await unlink(temp).catch(() => {})
    throw error
  }
  await syncFolder(folder)
}
