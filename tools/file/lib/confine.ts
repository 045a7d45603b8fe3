// Keeps an opened file or folder inside the workspace although the path was checked a moment
// before: a folder on the way may have been swapped for a symbolic link since. On Linux the kernel
// says where an open descriptor really is (/proc/self/fd/N), and a path under /proc/self/fd/N/ is
// resolved from that held folder, as openat() and mkdirat() would: creating and renaming through it
// cannot land anywhere else. Elsewhere, the opened object's identity (device and inode) is compared
// with what the path resolves to now, which closes the window except for a swap back and forth.
//
// The readlink of /proc/self/fd/N and the fstat of a descriptor just opened are made synchronously:
// both answer from the kernel's memory (the descriptor's dentry and inode, which the open has just
// looked up and, on network file systems, revalidated), so they cost a system call and never a
// wait on storage, while a trip through libuv's thread pool costs two thread switches and a turn of
// the event loop. Opens, reads and writes, which may wait on storage, stay asynchronous.
import type { Stats } from 'node:fs'
import { constants, existsSync, fstatSync, readlinkSync } from 'node:fs'
import { open, realpath, stat, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { FileToolError, showPath } from './errors.ts'
import { isInside } from './paths.ts'

const FOLDER_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY

/** Whether the kernel names open descriptors in /proc/self/fd (Linux): looked up once, at load. */
export const procWorks = process.platform === 'linux' && existsSync('/proc/self/fd')

/** The path through which the kernel reaches the object open as `fd` (a "magic link"). */
export function procPathOf (fd: number): string {
  return `/proc/self/fd/${fd}`
}

/** Where the kernel says descriptor `fd` is open, or undefined where /proc/self/fd does not exist. */
export function openedAt (fd: number): string | undefined {
  return procWorks ? readlinkSync(procPathOf(fd)) : undefined
}

export function swappedAway (input: string): FileToolError {
  return new FileToolError(
    `Refused path ${showPath(input)}: a folder on its way was replaced (by a symbolic link leading outside the workspace) while it was being opened`,
    { path: input }
  )
}

/** The stats of an open `handle`, after checking it is inside `root`; `path` is how it was opened. */
export async function checkOpenedInside (handle: FileHandle, path: string, root: string, input: string): Promise<Stats> {
  return (await checkedWhere(handle, path, root, input)).opened
}

/** As checkOpenedInside, also saying where the object is (the kernel's word, else `path`). */
async function checkedWhere (handle: FileHandle, path: string, root: string, input: string): Promise<{ opened: Stats, where: string }> {
  const opened = fstatSync(handle.fd)
  const where = openedAt(handle.fd)
  if (where !== undefined) {
    if (!isInside(where, root)) throw swappedAway(input)
    return { opened, where }
  }
  let now: Stats
  try {
    const real = await realpath(path)
    if (!isInside(real, root)) throw swappedAway(input)
    now = await stat(real)
  } catch (error) {
    if (error instanceof FileToolError) throw error
    throw swappedAway(input)
  }
  if (now.dev !== opened.dev || now.ino !== opened.ino) throw swappedAway(input)
  return { opened, where: path }
}

/** A folder held open inside the workspace; `at(name)` names an entry of that very folder. */
export interface HeldFolder {
  at: (name: string) => string
  /** Where the folder is: as the kernel says (Linux), else the path it was opened by. */
  real: string
  /** The folder itself, for readdir. */
  self: string
  sync: () => Promise<void>
  close: () => Promise<void>
}

export async function holdFolder (path: string, root: string, input: string): Promise<HeldFolder> {
  const handle = await open(path, FOLDER_FLAGS)
  let where: string
  try {
    ({ where } = await checkedWhere(handle, path, root, input))
  } catch (error) {
    await handle.close()
    throw error
  }
  const base = procWorks ? procPathOf(handle.fd) : path
  return {
    at: (name) => join(base, name),
    real: where,
    self: base,
    // Some file systems refuse fsync on a folder; durability of a rename is best effort there.
    sync: async () => { await handle.sync().catch(() => {}) },
    close: async () => { await handle.close().catch(() => {}) }
  }
}
