// The quick way to the file a call names, for the common case: a path that exists, inside the
// workspace, a plain file with one name. It costs two opens (through libuv's pool) where the
// careful way (paths.ts walking every component with lstat, then confine.ts checking the opened
// descriptor) costs one round trip per path component more. Anything else (missing, outside, a
// folder, a FIFO, a device, hard-linked, an error) answers undefined, and the caller goes the
// careful way, which refuses with the reason or reports the error: the quick way never decides
// a refusal, so every message stays the careful way's.
//
// Why it is safe without checking before opening (Linux only, it needs /proc/self/fd):
// 1. The lexical path is opened with O_PATH: the kernel resolves it (following links, as the
//    careful way does) and hands back a descriptor of what it found without opening it. Nothing is
//    read, a device's driver is not called (opening /dev/... can have effects, O_PATH does not),
//    a FIFO does not block.
// 2. readlink(/proc/self/fd/N) says where that object really is, and fstat what it is. Both are
//    about the object held, not about a path: a link swapped in after the open changes nothing.
//    Outside the workspace root, not a regular file, or several names (another may be outside):
//    not taken.
// 3. The file is then opened for reading through /proc/self/fd/N, which reaches that very inode
//    (not a path that could have changed), with the usual permission check.
// So whatever is swapped in at whatever moment, the descriptor read is the one checked. O_PATH is
// not in fs.constants; 0o10000000 is its value on every Linux architecture Node runs on (alpha,
// parisc and sparc differ), and it is tried once on the root: an open that reads is not O_PATH.
// The file is handed over as a plain descriptor (read-descriptor.ts), not a FileHandle, whose
// native object and close through the pool weigh on a small file (bench/README.md); the caller
// closes it in a finally.
import type { Stats } from 'node:fs'
import { closeSync, constants, fstatSync, open as openWithCallback, openSync, readSync } from 'node:fs'
import { openedAt, procPathOf, procWorks } from './confine.ts'
import { ReadDescriptor } from './read-descriptor.ts'
import { isInside } from './paths.ts'

const O_PATH = 0o10000000
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY

let pathFlagWorks: boolean | undefined

/** True when O_PATH opens without reading (tried once, on the workspace root). */
function checkPathFlag (root: string): boolean {
  if (pathFlagWorks !== undefined) return pathFlagWorks
  let fd: number | undefined
  try {
    fd = openSync(root, O_PATH | constants.O_DIRECTORY)
    readSync(fd, Buffer.alloc(1))
    pathFlagWorks = false
  } catch (error) {
    // A descriptor of O_PATH refuses reads with EBADF; a plain folder descriptor says EISDIR.
    pathFlagWorks = (error as NodeJS.ErrnoException).code === 'EBADF'
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
  return pathFlagWorks
}

/** The quick way is available here: Linux with /proc/self/fd and O_PATH. */
export function canOpenBeneath (root: string): boolean {
  return procWorks && checkPathFlag(root)
}

/** A descriptor of `path` opened with `flags`, or undefined on any error (the careful way then says which). */
function openOrNot (path: string, flags: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    openWithCallback(path, flags, (error, fd) => { resolve(error === null ? fd : undefined) })
  })
}

export interface OpenedBeneath {
  file: ReadDescriptor
  stats: Stats
  /** Where the file is, every link resolved (inside the root). */
  real: string
}

/** Opens `lexical` (a path under `root`, from lexicalInWorkspace) for reading, or undefined: see above. */
export async function openFileBeneath (root: string, lexical: string): Promise<OpenedBeneath | undefined> {
  const pathFd = await openOrNot(lexical, O_PATH)
  if (pathFd === undefined) return undefined
  try {
    const real = openedAt(pathFd)
    if (real === undefined || !isInside(real, root)) return undefined
    const stats = fstatSync(pathFd)
    if (!stats.isFile() || stats.nlink > 1) return undefined
    const fd = await openOrNot(procPathOf(pathFd), READ_FLAGS)
    return fd === undefined ? undefined : { file: new ReadDescriptor(fd), stats, real }
  } finally {
    // A descriptor of O_PATH holds no open file: closing it is bookkeeping in the kernel.
    closeSync(pathFd)
  }
}
