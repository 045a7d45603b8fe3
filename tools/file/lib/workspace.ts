// The workspace root of the app calling a tool: created on first use, then known by its real path,
// which every confinement check compares against.
import { mkdir, realpath, stat } from 'node:fs/promises'
import { isAbsolute } from 'node:path'
import { FileToolError } from './errors.ts'

export interface Workspace {
  /** The root as configured (absolute). */
  configured: string
  /** The root with every symbolic link resolved. */
  real: string
}

/** Creates the root if missing (mkdir -p) and resolves it; checked on every call, so a moved root is seen. */
export async function openWorkspace (workspaceRoot: string): Promise<Workspace> {
  if (!isAbsolute(workspaceRoot)) throw new FileToolError(`The workspace root ${workspaceRoot} is not an absolute path (a configuration error)`)
  try {
    await mkdir(workspaceRoot, { recursive: true })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'is not a folder' : `cannot be created (${code ?? (error as Error).message})`
    throw new FileToolError(`The workspace root ${workspaceRoot} ${why} (a configuration error)`)
  }
  const real = await realpath(workspaceRoot)
  if (!(await stat(real)).isDirectory()) throw new FileToolError(`The workspace root ${workspaceRoot} is not a folder (a configuration error)`)
  return { configured: workspaceRoot, real }
}
