// Writes a workspace file atomically: a temp file with a recognisable random name in the same
// folder, fsync, rename over the target. A reader sees the old or the new content, never half; a
// failure leaves the target as it was and no temp file behind. The folder is held open and checked
// to be inside the workspace first, and the temp file is created and renamed through that held
// folder (confine.ts), so a folder swapped for a link meanwhile cannot make either land outside.
// Missing parent folders are created one by one the same way, each checked to be a real folder.
import type { Stats } from 'node:fs'
import { lstat, mkdir, open, rename, rmdir, unlink, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join, relative, sep } from 'node:path'
import { checkOpenedInside, holdFolder, type HeldFolder } from './confine.ts'
import { FileToolError, showPath } from './errors.ts'
import { workspaceRelative, type ResolvedPath } from './paths.ts'
import { tempNameFor } from './temp-names.ts'
import type { Workspace } from './workspace.ts'

/** How many folders above `resolved` do not exist yet: what creating them will add to the workspace. */
export async function missingParentFolders (workspace: Workspace, resolved: ResolvedPath): Promise<number> {
  const parts = relative(workspace.real, dirname(resolved.real)).split(sep).filter((part) => part !== '')
  let current = workspace.real
  for (let i = 0; i < parts.length; i++) {
    current = join(current, parts[i])
    const exists = await lstat(current).then(() => true, () => false)
    if (!exists) return parts.length - i
  }
  return 0
}

/**
 * Removes folders a failed write created (workspace-relative, as ensureParentFolders returned them),
 * deepest first, each through its held parent; a folder something else has filled meanwhile stays.
 */
export async function removeCreatedFolders (workspace: Workspace, created: readonly string[]): Promise<void> {
  for (const folder of [...created].reverse()) {
    const path = join(workspace.real, ...folder.split('/'))
    try {
      const parent = await holdFolder(dirname(path), workspace.real, folder)
      try {
        await rmdir(parent.at(basename(path)))
      } finally {
        await parent.close()
      }
    } catch {
      return // not empty, or gone: the folders above it are not empty either
    }
  }
}

/**
 * Creates the missing folders above `resolved` and returns them, workspace-relative. Each is added
 * to `created` as soon as it exists, so a caller still knows what was made when a later one fails.
 */
export async function ensureParentFolders (workspace: Workspace, resolved: ResolvedPath, created: string[] = []): Promise<string[]> {
  const parts = relative(workspace.real, dirname(resolved.real)).split(sep).filter((part) => part !== '')
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
  try {
    await replaceInFolder(folder, basename(target), data, previous, root, target)
  } finally {
    await folder.close()
  }
}

/** The atomic replacement of `name` in a held folder; `label` names the file in a refusal. */
export async function replaceInFolder (folder: HeldFolder, name: string, data: string | Uint8Array, previous: Stats | undefined, root: string, label: string): Promise<void> {
  const temp = folder.at(tempNameFor(name))
  let handle: FileHandle | undefined
  try {
    // 'wx' = O_CREAT | O_EXCL: fails rather than follow anything already at the temp name.
    handle = await open(temp, 'wx', 0o666)
    const created = await checkOpenedInside(handle, temp, root, label)
    // The old file's permission bits, when the umask gave the new one others.
    if (previous !== undefined && (created.mode & 0o7777) !== (previous.mode & 0o7777)) await handle.chmod(previous.mode & 0o7777)
    await handle.writeFile(data)
    await handle.sync()
    await handle.close()
    handle = undefined
    await rename(temp, folder.at(name))
    await folder.sync()
  } catch (error) {
    await handle?.close().catch(() => {})
    await unlink(temp).catch(() => {})
    throw error
  }
}

/** A write's way in: its folder held (inside the workspace), the name in it, and what is there now. */
export interface HeldTarget {
  folder: HeldFolder
  name: string
  /** Workspace-relative path of the file, its folder's links resolved. */
  relative: string
  /** The file there now: a plain file with one name, or undefined when there is none. */
  previous: Stats | undefined
}

/**
 * The quick way of a write, for the common case: the folder exists inside the workspace and the
 * name is free or a plain file with one name. The folder is opened (O_DIRECTORY: nothing else is
 * opened, no driver called) and checked through the kernel (confine.ts); the temp file is then
 * created and renamed through that held folder, so nothing swapped in later can move the write
 * outside. Anything else (a missing folder, a link, a folder or FIFO at the name, several names,
 * an error) answers undefined and the caller goes the careful way, which refuses with the reason,
 * follows a link inside, or creates the folders.
 */
export async function holdTargetBeneath (root: string, lexical: string): Promise<HeldTarget | undefined> {
  if (lexical === root) return undefined
  let folder: HeldFolder
  try {
    folder = await holdFolder(dirname(lexical), root, lexical)
  } catch {
    return undefined
  }
  const name = basename(lexical)
  let previous: Stats | undefined
  let usable: boolean
  try {
    previous = await lstat(folder.at(name))
    usable = previous.isFile() && previous.nlink === 1
  } catch (error) {
    usable = (error as NodeJS.ErrnoException).code === 'ENOENT'
  }
  if (!usable) {
    await folder.close()
    return undefined
  }
  return { folder, name, relative: workspaceRelative(root, join(folder.real, name)), previous }
}
