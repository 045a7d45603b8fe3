// The workspace root of the app calling a tool: created on first use, then known by its real path,
// which every confinement check compares against. The first use in this process also prepares it:
// the temp files a crash left are removed and the size the quota counts is measured.
import { mkdir, realpath, stat } from 'node:fs/promises'
import { isAbsolute } from 'node:path'
import { FileToolError } from './errors.ts'
import { WorkspaceUsage } from './workspace-usage.ts'

export interface Workspace {
  /** The root as configured (absolute). */
  configured: string
  /** The root with every symbolic link resolved. */
  real: string
  /** Bytes its files hold, for the quota: only writes wait for the first measurement (a walk). */
  usage: Promise<WorkspaceUsage>
}

/** One preparation per real root for the life of the process (several apps may share one). */
const prepared = new Map<string, Promise<WorkspaceUsage>>()

function usageOf (real: string): Promise<WorkspaceUsage> {
  let usage = prepared.get(real)
  if (usage === undefined) {
    usage = WorkspaceUsage.prepare(real)
    prepared.set(real, usage)
    usage.catch(() => prepared.delete(real))
  }
  return usage
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
  return { configured: workspaceRoot, real, usage: usageOf(real) }
}
