// Where a command may start: the workspace root or a folder inside it, decided on real paths so
// that `..`, absolute paths and symlinks cannot move the start folder out of the workspace.
import { mkdir, realpath, stat } from 'node:fs/promises'
import { isAbsolute, resolve, sep } from 'node:path'

export type WorkdirResult = { ok: true, path: string } | { ok: false, error: string }

/** The real path of the workspace root, created first if missing. */
export async function workspaceRealPath (root: string): Promise<string> {
  await mkdir(root, { recursive: true })
  return await realpath(root)
}

function isInside (rootReal: string, candidate: string): boolean {
  return candidate === rootReal || candidate.startsWith(rootReal.endsWith(sep) ? rootReal : rootReal + sep)
}

/**
 * Resolves `workdir` (relative to the workspace, or absolute) to a real folder inside `rootReal`.
 * The returned path is the resolved one, so a symlink swapped in after the check is not followed
 * by name.
 */
export async function resolveWorkdir (rootReal: string, workdir: string | undefined): Promise<WorkdirResult> {
  if (workdir === undefined || workdir.trim() === '' || workdir === '.') return { ok: true, path: rootReal }
  if (workdir.includes('\0')) return { ok: false, error: 'workdir contains a NUL byte' }
  const requested = isAbsolute(workdir) ? resolve(workdir) : resolve(rootReal, workdir)
  // Checked before touching the file system, so a path outside is refused without probing it.
  if (!isInside(rootReal, requested)) {
    return { ok: false, error: `workdir "${workdir}" is outside the workspace (${rootReal}); give a folder inside it, relative to it` }
  }
  let real: string
  try {
    real = await realpath(requested)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return { ok: false, error: `workdir "${workdir}" does not exist in the workspace` }
    if (code === 'ENAMETOOLONG') return { ok: false, error: 'workdir is too long' }
    return { ok: false, error: `workdir "${workdir}" cannot be resolved (${code ?? 'unknown error'})` }
  }
  if (!isInside(rootReal, real)) {
    return { ok: false, error: `workdir "${workdir}" leads outside the workspace through a symbolic link` }
  }
  if (!(await stat(real)).isDirectory()) return { ok: false, error: `workdir "${workdir}" is not a folder` }
  return { ok: true, path: real }
}
