// Killing a sandboxed command. bwrap, the process the gateway spawns, does not pass SIGTERM on: a
// signal to its group would end bwrap at once and, through --die-with-parent and the PID namespace,
// SIGKILL everything inside without a chance to clean up. So the grace is given by hand: SIGTERM to
// every process inside (the descendants of bwrap; in the PID namespace an orphan is adopted by the
// sandbox's init, so a setsid child never leaves the tree), then, after the grace, SIGKILL to bwrap,
// which takes the whole namespace down with it.
import { setTimeout as delay } from 'node:timers/promises'
import { liveProcesses, procEntry } from './proc.ts'
import { signalGroup, waitGroupGone, type KillGroupResult } from './process-group.ts'

/** The live descendants of `root` (not `root` itself), read from /proc; null where /proc is missing. */
export async function liveDescendants (root: number): Promise<number[] | null> {
  const processes = await liveProcesses()
  if (processes === null) return null
  const children = new Map<number, number[]>()
  for (const { pid, ppid } of processes) children.set(ppid, [...(children.get(ppid) ?? []), pid])
  const found: number[] = []
  const queue = [root]
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child)
      queue.push(child)
    }
  }
  return found.sort((a, b) => a - b)
}

/** Whether `pid` runs (a zombie does not: it may never be reaped where the container's init does not reap). */
async function isLive (pid: number): Promise<boolean> {
  return (await procEntry(pid)) !== undefined
}

/** Polls until none of `pids` runs, for at most `ms`. */
async function waitAllGone (pids: number[], ms: number): Promise<void> {
  const deadline = Date.now() + ms
  let left = pids
  while (left.length > 0 && Date.now() < deadline) {
    await delay(10)
    left = (await Promise.all(left.map(async (pid) => (await isLive(pid)) ? [pid] : []))).flat()
  }
}

function signal (pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch {} // gone already
}

/**
 * SIGTERM to everything inside the sandbox bwrap `pid` leads, then SIGKILL to bwrap (and so to
 * the whole sandbox) after `graceMs`. `pid` leads its own process group (spawned detached), which
 * holds bwrap only: the sandbox's init starts a new session. Resolves once bwrap and every process
 * seen inside are gone: bwrap exits as soon as the command's shell does, and its init then takes
 * the rest down a moment later, so bwrap's exit alone does not say the sandbox is empty.
 */
export async function killSandbox (pid: number, graceMs: number): Promise<KillGroupResult> {
  const inside = await liveDescendants(pid) ?? []
  for (const member of inside) {
    signal(member, 'SIGTERM')
    // A stopped process (Ctrl-Z, SIGSTOP) only acts on SIGTERM once it runs again.
    signal(member, 'SIGCONT')
  }
  let result: KillGroupResult = { forced: false, gone: true }
  if (!await waitGroupGone(pid, graceMs) && signalGroup(pid, 'SIGKILL')) {
    result = { forced: true, gone: await waitGroupGone(pid, 1000) }
  }
  await waitAllGone(inside, 1000)
  return result
}
