// Lists the files under a workspace folder for search_files, in a stable order (names sorted by code
// unit, depth first). Skips .git and node_modules, the temp files of atomic writes, devices, FIFOs
// and sockets; each folder is listed through a descriptor checked to be inside the workspace (a
// folder swapped for a link to outside is not listed); a symbolic link is
// taken only when it resolves to a file inside the workspace (folder links are not followed, which
// also rules out cycles). Stops as soon as the caller's `stopped()` says so.
import type { Dirent } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { holdFolder } from './confine.ts'
import { resolveInWorkspace } from './paths.ts'
import { isTempName } from './temp-names.ts'
import type { Workspace } from './workspace.ts'

export const IGNORED_FOLDERS: ReadonlySet<string> = new Set(['.git', 'node_modules'])

export interface WalkedFile {
  /** Workspace-relative, '/'-separated, as reached (through a link when it is one). */
  relative: string
  /** Physical path to open. */
  real: string
}

export interface WalkCounters {
  ignoredFolders: number
  symlinksRefused: number
  symlinkedFolders: number
  special: number
  unreadableFolders: number
}

export function newWalkCounters (): WalkCounters {
  return { ignoredFolders: 0, symlinksRefused: 0, symlinkedFolders: 0, special: 0, unreadableFolders: 0 }
}

function childPath (relative: string, name: string): string {
  return relative === '.' ? name : `${relative}/${name}`
}

async function * walkFolder (
  workspace: Workspace, relative: string, real: string, counters: WalkCounters, stopped: () => boolean
): AsyncGenerator<WalkedFile> {
  let entries: Dirent[]
  try {
    const folder = await holdFolder(real, workspace.real, relative)
    try {
      entries = await readdir(folder.self, { withFileTypes: true })
    } finally {
      await folder.close()
    }
  } catch {
    counters.unreadableFolders += 1
    return
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const entry of entries) {
    if (stopped()) return
    // Another write's temp file (or a crash's leftover): never a result.
    if (isTempName(entry.name)) continue
    const childRelative = childPath(relative, entry.name)
    if (entry.isDirectory()) {
      if (IGNORED_FOLDERS.has(entry.name)) {
        counters.ignoredFolders += 1
        continue
      }
      yield * walkFolder(workspace, childRelative, join(real, entry.name), counters, stopped)
    } else if (entry.isFile()) {
      yield { relative: childRelative, real: join(real, entry.name) }
    } else if (entry.isSymbolicLink()) {
      try {
        const target = await resolveInWorkspace(workspace, childRelative)
        if (target.stats?.isFile() === true) yield { relative: childRelative, real: target.real }
        else if (target.stats?.isDirectory() === true) counters.symlinkedFolders += 1
      } catch {
        // Leads outside, to a device or FIFO, loops, or cannot be read: never searched.
        counters.symlinksRefused += 1
      }
    } else {
      counters.special += 1
    }
  }
}

/** The files under `start` (workspace-relative, real path), or `start` itself when it is a file. */
export function walkFiles (
  workspace: Workspace, start: { relative: string, real: string, isFile: boolean }, counters: WalkCounters, stopped: () => boolean
): AsyncGenerator<WalkedFile> {
  if (start.isFile) {
    return (async function * single () { yield { relative: start.relative, real: start.real } })()
  }
  return walkFolder(workspace, start.relative, start.real, counters, stopped)
}
