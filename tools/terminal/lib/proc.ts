// The process table as Linux's /proc shows it, read the one way every kill path needs: each live
// process with its parent and process group. Zombies are left out: an orphan's zombie may never be
// reaped (a container whose init does not reap), and a zombie runs nothing.
import { readdir, readFile } from 'node:fs/promises'

export interface ProcEntry {
  pid: number
  ppid: number
  pgrp: number
}

/** The process ids /proc lists now; null where there is no /proc. */
export async function procPids (): Promise<number[] | null> {
  try {
    return (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number)
  } catch {
    return null
  }
}

/** One process's entry, or undefined when it is gone or a zombie. */
export async function procEntry (pid: number): Promise<ProcEntry | undefined> {
  let stat: string
  try {
    stat = await readFile(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined // exited while we looked
  }
  // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so split after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  if (fields[0] === 'Z' || fields[0] === 'X') return undefined
  return { pid, ppid: Number(fields[1]), pgrp: Number(fields[2]) }
}

/** Every live process; null where there is no /proc. */
export async function liveProcesses (): Promise<ProcEntry[] | null> {
  const pids = await procPids()
  if (pids === null) return null
  const entries = await Promise.all(pids.map(procEntry))
  return entries.filter((entry) => entry !== undefined)
}
