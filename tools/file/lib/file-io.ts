// Opening and reading workspace files safely: never follow a link swapped in after the path check
// (O_NOFOLLOW), never block on a FIFO (O_NONBLOCK), and check the open descriptor again: still a
// regular file, still inside the workspace (a parent folder may have been swapped for a link), and
// not hard-linked (another name of it may be outside). The common case takes the quick way
// (open-beneath.ts), with the same guarantees in fewer round trips.
import type { Stats } from 'node:fs'
import { constants } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { binaryReason } from './binary.ts'
import { checkOpenedInside } from './confine.ts'
import { FileToolError, showPath } from './errors.ts'
import { FILE_LIMITS } from './limits.ts'
import type { PageSource } from './line-page.ts'
import { canOpenBeneath, openFileBeneath } from './open-beneath.ts'
import { checkPathText, hardLinked, lexicalInWorkspace, requireFile, resolveInWorkspace, workspaceRelative, type ResolvedPath } from './paths.ts'
import { refreshWorkspace, workspaceOf } from './workspace.ts'

const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW

/** A workspace file open for reading, with its stats from the one fstat made. */
export interface OpenedFile {
  /** A plain descriptor (the quick way) or a FileHandle (the careful way): the caller closes it. */
  reader: PageSource & { close: () => Promise<void> | void }
  stats: Stats
  /** Workspace-relative, every link resolved. */
  relative: string
  /** The path as the model gave it. */
  input: string
}

/**
 * Opens the file `input` names for reading: the quick way when it is a plain file inside, else
 * the careful way (the root resolved again, every component checked), which refuses with the
 * reason, or says the file is missing or a folder (`folderHint` then says what to do instead).
 */
export async function openWorkspaceFile (workspaceRoot: string, input: string, folderHint: string): Promise<OpenedFile> {
  checkPathText(input)
  const kept = await workspaceOf(workspaceRoot)
  const lexical = lexicalInWorkspace(kept, input)
  if (canOpenBeneath(kept.real)) {
    const quick = await openFileBeneath(kept.real, lexical)
    if (quick !== undefined) return { reader: quick.file, stats: quick.stats, relative: workspaceRelative(kept.real, quick.real), input }
  }
  const resolved = await resolveInWorkspace(await refreshWorkspace(workspaceRoot), input)
  requireFile(resolved, folderHint)
  const { handle, stats } = await openForRead(resolved)
  return { reader: handle, stats, relative: resolved.relative, input }
}

/** Opens a checked path for reading; refuses anything that is not a regular file once opened. */
export async function openForRead (resolved: ResolvedPath): Promise<{ handle: FileHandle, stats: Stats }> {
  let handle: FileHandle
  try {
    handle = await open(resolved.real, READ_FLAGS)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new FileToolError(`Refused path ${showPath(resolved.input)}: it turned into a symbolic link while being opened`, { path: resolved.input })
    }
    throw error
  }
  try {
    const stats = await checkOpenedInside(handle, resolved.real, resolved.root, resolved.input)
    if (!stats.isFile()) throw new FileToolError(`Refused path ${showPath(resolved.input)}: it is not a regular file`, { path: resolved.input })
    if (stats.nlink > 1) throw hardLinked(resolved.input, stats.nlink)
    return { handle, stats }
  } catch (error) {
    await handle.close()
    throw error
  }
}

/**
 * The content of an open regular file of `size` bytes (its fstat): one read when the size still
 * holds (the buffer has a byte more, so a file that grew is seen and read on), stopping once more
 * than `max` bytes are in (the caller refuses those).
 */
export async function readWhole (handle: FileHandle, size: number, max = Number.MAX_SAFE_INTEGER): Promise<Buffer> {
  let buffer = Buffer.allocUnsafe(Math.min(size, max) + 1)
  let length = 0
  while (length <= max) {
    if (length === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.length)])
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length)
    if (bytesRead === 0) break
    length += bytesRead
    // Short of the room given, at or past the size fstat gave: the end (no read for the 0 bytes).
    if (length < buffer.length && length >= size) break
  }
  return buffer.subarray(0, length)
}

/**
 * The whole text of a file to be edited: refused when larger than `maxBytes` or not UTF-8 text
 * anywhere in it (decoding lossily and writing back would corrupt the bytes that are not text).
 */
export async function readTextForEdit (resolved: ResolvedPath, maxBytes = FILE_LIMITS.maxWriteBytes): Promise<string> {
  const { handle, stats: { size } } = await openForRead(resolved)
  try {
    if (size > maxBytes) {
      throw new FileToolError(`${showPath(resolved.input)} is ${size} bytes, larger than the ${maxBytes}-byte limit for editing`, { path: resolved.input })
    }
    const buffer = await readWhole(handle, size, maxBytes)
    if (buffer.length > maxBytes) {
      throw new FileToolError(`${showPath(resolved.input)} grew past the ${maxBytes}-byte limit for editing while being read`, { path: resolved.input })
    }
    const sampleReason = binaryReason(buffer.subarray(0, FILE_LIMITS.sniffBytes))
    if (sampleReason !== undefined) throw notText(resolved, sampleReason)
    try {
      return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(buffer)
    } catch {
      throw notText(resolved, 'it is not valid UTF-8 text (a binary file or another encoding)')
    }
  } finally {
    await handle.close()
  }
}

export function notText (resolved: { input: string }, reason: string): FileToolError {
  return new FileToolError(`Cannot use ${showPath(resolved.input)} as text: ${reason}. The file tools only work on UTF-8 text files.`, { path: resolved.input, binary: true })
}
