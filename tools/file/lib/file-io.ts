// Opening and reading workspace files safely: never follow a link swapped in after the path check
// (O_NOFOLLOW), never block on a FIFO (O_NONBLOCK), and check the open descriptor again: still a
// regular file, still inside the workspace (a parent folder may have been swapped for a link), and
// not hard-linked (another name of it may be outside).
import { constants } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { binaryReason } from './binary.ts'
import { checkOpenedInside } from './confine.ts'
import { FileToolError, showPath } from './errors.ts'
import { FILE_LIMITS } from './limits.ts'
import { hardLinked, type ResolvedPath } from './paths.ts'

const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW

/** Opens a checked path for reading; refuses anything that is not a regular file once opened. */
export async function openForRead (resolved: ResolvedPath): Promise<FileHandle> {
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
  } catch (error) {
    await handle.close()
    throw error
  }
  return handle
}

/** The first bytes of an open file, for binary sniffing. */
export async function readSample (handle: FileHandle, bytes = FILE_LIMITS.sniffBytes): Promise<Buffer> {
  const buffer = Buffer.alloc(bytes)
  const { bytesRead } = await handle.read(buffer, 0, bytes, 0)
  return buffer.subarray(0, bytesRead)
}

/**
 * The whole text of a file to be edited: refused when larger than `maxBytes` or not UTF-8 text
 * anywhere in it (decoding lossily and writing back would corrupt the bytes that are not text).
 */
export async function readTextForEdit (resolved: ResolvedPath, maxBytes = FILE_LIMITS.maxWriteBytes): Promise<string> {
  const handle = await openForRead(resolved)
  try {
    const { size } = await handle.stat()
    if (size > maxBytes) {
      throw new FileToolError(`${showPath(resolved.input)} is ${size} bytes, larger than the ${maxBytes}-byte limit for editing`, { path: resolved.input })
    }
    const buffer = await handle.readFile()
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

export function notText (resolved: ResolvedPath, reason: string): FileToolError {
  return new FileToolError(`Cannot use ${showPath(resolved.input)} as text: ${reason}. The file tools only work on UTF-8 text files.`, { path: resolved.input, binary: true })
}
