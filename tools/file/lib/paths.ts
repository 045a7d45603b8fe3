// The one place that decides whether a path a model gives is inside the workspace. Checks run on the
// text first (NUL, length, `..`, absolute paths), then on the disk: every symbolic link on the way
// is resolved by hand, so dangling links and links in missing tails are judged too, and the real
// result must be the root itself or under root + separator. Only regular files and folders pass.
import type { Stats } from 'node:fs'
import { lstat, readlink } from 'node:fs/promises'
import { isAbsolute, join, parse, relative, resolve, sep } from 'node:path'
import { FileToolError, showPath } from './errors.ts'
import { FILE_LIMITS } from './limits.ts'
import { isTempName } from './temp-names.ts'
import { refreshWorkspace, workspaceOf, type Workspace } from './workspace.ts'

export interface ResolvedPath {
  /** The path as the model gave it. */
  input: string
  /** The physical path, every symbolic link resolved: what file-system calls use. */
  real: string
  /** `real` relative to the workspace root, '/'-separated, '.' for the root itself. */
  relative: string
  /** lstat of `real` when it exists (never a symbolic link, never a device, FIFO or socket). */
  stats: Stats | undefined
  /** The workspace root, real: what an opened file is checked against again. */
  root: string
}

function refuse (input: string, reason: string): FileToolError {
  return new FileToolError(`Refused path ${showPath(input)}: ${reason}`, { path: input })
}

/** True when `candidate` is `root` or inside it; the separator keeps `/ws-evil` out of `/ws`. */
export function isInside (candidate: string, root: string): boolean {
  if (candidate === root) return true
  const prefix = root.endsWith(sep) ? root : root + sep
  return candidate.startsWith(prefix)
}

/** The checks that need no disk access; run before anything touches the file system. */
export function checkPathText (input: string): void {
  if (typeof input !== 'string' || input.trim() === '') throw new FileToolError('The path is empty: give a path relative to the workspace root')
  if (input.includes('\0')) throw refuse(input, 'it contains a NUL byte')
  // Unpaired UTF-16 halves reach the file system as U+FFFD: two different inputs would name one file.
  if (/[\uD800-\uDFFF]/u.test(input)) throw refuse(input, 'it contains a lone surrogate (a half of a UTF-16 pair, not a character)')
  const bytes = Buffer.byteLength(input)
  if (bytes > FILE_LIMITS.maxPathBytes) throw refuse(input, `it is ${bytes} bytes long, the limit is ${FILE_LIMITS.maxPathBytes}`)
  const long = input.split(/[\\/]/).find((part) => Buffer.byteLength(part) > FILE_LIMITS.maxNameBytes)
  if (long !== undefined) throw refuse(input, `the name ${showPath(long.slice(0, 40) + '…')} is longer than ${FILE_LIMITS.maxNameBytes} bytes`)
  if (input.split(/[\\/]/).some(isTempName)) {
    throw refuse(input, 'names of the form .<name>.<16 hex digits>.tmp are reserved for the temporary files of atomic writes')
  }
}

/** A file with several names may share its content with a name outside the workspace: never used. */
export function hardLinked (input: string, links: number): FileToolError {
  return refuse(input, `it has ${links} hard links, and another of them may be outside the workspace; the file tools do not use such files (make a copy instead)`)
}

function kindOf (stats: Stats): string | undefined {
  if (stats.isFile() || stats.isDirectory()) return undefined
  if (stats.isFIFO()) return 'a FIFO (named pipe)'
  if (stats.isSocket()) return 'a socket'
  if (stats.isCharacterDevice()) return 'a character device'
  if (stats.isBlockDevice()) return 'a block device'
  return 'not a regular file or folder'
}

function errnoOf (error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code
}

interface Physical { real: string, stats: Stats | undefined }

/**
 * Walks `relativeParts` from the (real) root one component at a time, following symbolic links by
 * hand. A missing component ends the walk: the rest is appended as plain names (a write would
 * create them), and a `..` in that rest is refused since it could climb back through a link.
 */
async function walkPhysical (input: string, root: string, relativeParts: string[]): Promise<Physical> {
  const queue = [...relativeParts]
  let current = root
  let stats: Stats | undefined = await lstat(root)
  let hops = 0
  while (queue.length > 0) {
    const part = queue.shift() as string
    if (part === '' || part === '.') continue
    if (part === '..') {
      current = resolve(current, '..')
      stats = await lstat(current)
      continue
    }
    const next = join(current, part)
    try {
      stats = await lstat(next)
    } catch (error) {
      const code = errnoOf(error)
      if (code === 'ENOTDIR') throw refuse(input, `${showPath(current)} is not a folder`)
      if (code !== 'ENOENT') throw error
      if (queue.includes('..')) throw refuse(input, 'a symbolic link on the way points into a missing folder and back up with ..')
      return { real: join(next, ...queue), stats: undefined }
    }
    if (stats.isSymbolicLink()) {
      hops += 1
      if (hops > FILE_LIMITS.maxSymlinkHops) throw refuse(input, 'too many levels of symbolic links')
      const target = await readlink(next)
      queue.unshift(...target.split(sep))
      if (isAbsolute(target)) current = parse(target).root
      continue
    }
    if (queue.some((rest) => rest !== '' && rest !== '.') && !stats.isDirectory()) {
      throw refuse(input, `${showPath(relative(root, next) || next)} is not a folder`)
    }
    current = next
  }
  return { real: current, stats }
}

/**
 * `input` resolved against the real root as text (`.` and `..` folded, no disk access), refused
 * when it leaves the root: the path every later step opens or walks.
 */
export function lexicalInWorkspace (workspace: Workspace, input: string): string {
  const lexical = resolve(workspace.real, input)
  if (isInside(lexical, workspace.real)) return lexical
  // An absolute path may spell the root as configured when the real root differs (a symlinked /tmp).
  const viaConfigured = resolve(workspace.configured, input)
  if (isAbsolute(input) && isInside(viaConfigured, workspace.configured)) {
    return join(workspace.real, relative(workspace.configured, viaConfigured))
  }
  throw refuse(input, isAbsolute(input)
    ? `it is an absolute path outside the workspace (${workspace.configured})`
    : 'it climbs out of the workspace with ..')
}

/** `real` (inside the root) relative to the root, '/'-separated, '.' for the root itself. */
export function workspaceRelative (root: string, real: string): string {
  const rel = relative(root, real).split(sep).join('/')
  return rel === '' ? '.' : rel
}

/**
 * Resolves `input` (relative to the root, or absolute inside it) to a checked physical path.
 * Throws FileToolError naming the path and the reason for every refusal.
 */
export async function resolveInWorkspace (workspace: Workspace, input: string): Promise<ResolvedPath> {
  checkPathText(input)
  const lexical = lexicalInWorkspace(workspace, input)
  const parts = relative(workspace.real, lexical).split(sep)
  const physical = await walkPhysical(input, workspace.real, parts)
  if (!isInside(physical.real, workspace.real)) throw refuse(input, 'it leads outside the workspace through a symbolic link')
  if (physical.stats !== undefined) {
    const kind = kindOf(physical.stats)
    if (kind !== undefined) throw refuse(input, `it is ${kind}; only regular files and folders can be used`)
    if (physical.stats.isFile() && physical.stats.nlink > 1) throw hardLinked(input, physical.stats.nlink)
  }
  return { input, real: physical.real, relative: workspaceRelative(workspace.real, physical.real), stats: physical.stats, root: workspace.real }
}

/** Refuses a resolved path that is not an existing regular file, with a hint for folders. */
export function requireFile (resolved: ResolvedPath, folderHint: string): Stats {
  if (resolved.stats === undefined) throw new FileToolError(`File not found: ${showPath(resolved.input)}`, { path: resolved.input })
  if (resolved.stats.isDirectory()) throw new FileToolError(`${showPath(resolved.input)} is a folder, not a file. ${folderHint}`, { path: resolved.input })
  return resolved.stats
}

/**
 * Checks the text of `input`, then resolves it in the workspace (as kept, see workspace.ts). A
 * file-system failure may come from a root deleted or moved since: the root is resolved again
 * (created when missing) and the path once more, so the failure reported is about the path.
 */
export async function openAndResolve (workspaceRoot: string, input: string): Promise<{ workspace: Workspace, resolved: ResolvedPath }> {
  checkPathText(input)
  const kept = await workspaceOf(workspaceRoot)
  try {
    return { workspace: kept, resolved: await resolveInWorkspace(kept, input) }
  } catch (error) {
    if (error instanceof FileToolError) throw error
  }
  const workspace = await refreshWorkspace(workspaceRoot)
  return { workspace, resolved: await resolveInWorkspace(workspace, input) }
}
