// Expected failures of the file tools, and the single place that turns any failure into the
// `{"error": ...}` result a model reads (never a crash, never a stack trace).
import { toolError } from '../../../src/registry/index.ts'

/** A refusal or an expected failure; its message is shown to the model as is. */
export class FileToolError extends Error {
  readonly extra: Record<string, unknown>

  constructor (message: string, extra: Record<string, unknown> = {}) {
    super(message)
    this.name = 'FileToolError'
    this.extra = extra
  }
}

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'does not exist',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a folder',
  ENOTDIR: 'a parent of it is not a folder',
  ENAMETOOLONG: 'the path is too long for the file system',
  ELOOP: 'too many levels of symbolic links',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'the file system is read-only',
  EEXIST: 'already exists',
  ENOTEMPTY: 'is a folder that is not empty',
  EMFILE: 'too many open files, try again',
  EBUSY: 'the file is busy'
}

/** A path as shown in a message: quoted, odd characters escaped, very long ones cut. */
export function showPath (path: string): string {
  const shown = JSON.stringify(path)
  return shown.length > 200 ? `${shown.slice(0, 199)}…"` : shown
}

function isErrno (error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string'
}

/**
 * The tool result for a failure while working on `path`. File-system errors become a sentence
 * naming the path and the reason; anything unexpected is rethrown for the dispatcher to sanitise.
 */
export function failure (error: unknown, path: string | undefined): string {
  const where = path === undefined ? {} : { path }
  if (error instanceof FileToolError) return toolError(error.message, { ...where, ...error.extra })
  if (isErrno(error) && error.code !== 'ABORT_ERR') {
    const code = error.code as string
    const reason = ERRNO_TEXT[code] ?? error.message
    const subject = path === undefined ? 'The file operation failed' : `${showPath(path)}`
    return toolError(`${subject}: ${reason} (${code})`, { ...where, code })
  }
  throw error
}
