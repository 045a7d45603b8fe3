// Signals and watches a whole process group, so that killing a command also kills everything it
// started (`sleep 100 &`, subshells, pipelines) and "gone" can be checked rather than assumed.
import { setTimeout as delay } from 'node:timers/promises'
import { liveProcesses } from './proc.ts'

export const DEFAULT_GRACE_MS = 2000

function errnoOf (err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code
}

/** Sends `signal` to every process of group `pgid`; false when the group no longer exists. */
export function signalGroup (pgid: number, signal: NodeJS.Signals | 0): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1) throw new RangeError(`refusing to signal process group ${pgid}`)
  try {
    process.kill(-pgid, signal)
    return true
  } catch (err) {
    if (errnoOf(err) === 'ESRCH') return false
    throw err
  }
}

/**
 * The live (non-zombie) processes of group `pgid`, read from /proc; null where /proc is missing.
 * Zombies are skipped because an orphan's zombie may never be reaped (a container whose init does
 * not reap), and a zombie runs nothing.
 */
export async function liveGroupMembers (pgid: number): Promise<number[] | null> {
  const processes = await liveProcesses()
  if (processes === null) return null
  return processes.filter((entry) => entry.pgrp === pgid).map((entry) => entry.pid).sort((a, b) => a - b)
}

/** Whether any process of the group still runs. */
export async function isGroupAlive (pgid: number): Promise<boolean> {
  const members = await liveGroupMembers(pgid)
  if (members !== null) return members.length > 0
  return signalGroup(pgid, 0)
}

/** Polls until the group is gone or `ms` have passed; true when it is gone. */
export async function waitGroupGone (pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  let pause = 10
  for (;;) {
    if (!await isGroupAlive(pgid)) return true
    const left = deadline - Date.now()
    if (left <= 0) return false
    await delay(Math.min(pause, left))
    pause = Math.min(pause * 2, 100)
  }
}

export interface KillGroupResult {
  /** SIGKILL was needed: something ignored or outlived SIGTERM for the whole grace. */
  forced: boolean
  /** The group was seen empty afterwards. */
  gone: boolean
}

/**
 * SIGTERM to the whole group, then SIGKILL to whatever is left after `graceMs`. Resolves once the
 * group is gone (or, if even SIGKILL cannot empty it in a second, when it stops waiting).
 */
export async function killGroup (pgid: number, graceMs = DEFAULT_GRACE_MS): Promise<KillGroupResult> {
  if (!signalGroup(pgid, 'SIGTERM')) return { forced: false, gone: true }
  // A stopped process (Ctrl-Z, SIGSTOP) only acts on SIGTERM once it runs again.
  signalGroup(pgid, 'SIGCONT')
  if (await waitGroupGone(pgid, graceMs)) return { forced: false, gone: true }
  signalGroup(pgid, 'SIGKILL')
  return { forced: true, gone: await waitGroupGone(pgid, 1000) }
}
