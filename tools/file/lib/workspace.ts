// The workspace root of the app calling a tool: created on first use, then known by its real path,
// which every confinement check compares against. The first use in this process also prepares it:
// the temp files a crash left are removed and the size the quota counts is measured.
//
// The root is resolved once (mkdir -p, realpath, stat) and kept (`workspaceOf`), not per call: a
// call's safety never rests on the kept value being current, because every opened file or folder
// is checked against it through the kernel (/proc/self/fd, confine.ts). What a stale value can
// do is fail: a root deleted or moved away makes an open fail (ENOENT), a root swapped for a link
// makes the opened file lie outside the kept path. Every such failure goes the slow way, which
// resolves the root again (`refreshWorkspace`) before it judges the path, so a recreated root is
// created and found again by the very call that met it gone. One case is only picked up then: a
// configured root that is a symbolic link retargeted to another folder keeps serving the folder
// it pointed to (still a folder the operator chose) until a call fails or the process restarts.
import { mkdir, realpath, stat } from 'node:fs/promises'
import { isAbsolute } from 'node:path'
import { configOf } from '../../../src/registry/index.ts'
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

/** The root as resolved at its first use (or last refresh); see the top of this file for why that is safe. */
const current = new Map<string, Promise<Workspace>>()

export function workspaceOf (workspaceRoot: string): Promise<Workspace> {
  let workspace = current.get(workspaceRoot)
  if (workspace === undefined) {
    const opening = openWorkspace(workspaceRoot)
    // A failed resolution is not kept: the next call tries again (the operator may fix the root).
    opening.catch(() => { if (current.get(workspaceRoot) === opening) current.delete(workspaceRoot) })
    current.set(workspaceRoot, opening)
    workspace = opening
  }
  return workspace
}

/** Resolves the root again (creating it if it went missing): after a call met something unexpected. */
export function refreshWorkspace (workspaceRoot: string): Promise<Workspace> {
  current.delete(workspaceRoot)
  return workspaceOf(workspaceRoot)
}

/** Creates the root if missing (mkdir -p) and resolves it. */
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

/**
 * The file tools' `prepare`: the workspace opened and measured when the gateway starts, which
 * removes the temp files of writes a crash or `kill -9` cut short, whether or not a file tool is
 * ever called in this run.
 */
export async function prepareWorkspace (ctx: { config: unknown }): Promise<void> {
  await (await workspaceOf(configOf(ctx).workspaceRoot)).usage
}
