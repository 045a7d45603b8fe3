// Without the sandbox, a process that calls setsid (or daemonises) leaves its command's process
// group, and killing the group misses it. Every unconfined command therefore carries a marker in its
// environment, which whatever it starts inherits; when the command is over, the gateway reads
// /proc/<pid>/environ of the processes it may read, and kills those still carrying the marker. A
// process that clears its environment (env -i) is not found: only the sandbox contains that.
import { readFile } from 'node:fs/promises'
import { setTimeout as delay } from 'node:timers/promises'
import { procPids } from './proc.ts'

/** The variable holding the marker; its value is unique to one command. */
export const MARKER_VARIABLE = 'TOOL_GATEWAY_COMMAND'

/** The live processes (other than the gateway) whose environment holds MARKER_VARIABLE=`value`; [] without /proc. */
export async function markedProcesses (value: string): Promise<number[]> {
  const pids = await procPids()
  if (pids === null) return []
  const wanted = `${MARKER_VARIABLE}=${value}\0`
  const found: number[] = []
  await Promise.all(pids.filter((pid) => pid !== process.pid).map(async (pid) => {
    let environ: string
    try {
      environ = await readFile(`/proc/${pid}/environ`, 'utf8')
    } catch {
      return // gone, or another user's process
    }
    if (environ.startsWith(wanted) || environ.includes(`\0${wanted}`)) found.push(pid)
  }))
  return found
}

/**
 * SIGKILLs every process carrying the marker and looks again until none is left (one may fork
 * while the others are being killed, and a killed one takes a moment to die), for at most `ms`.
 * Answers how many were killed; the first look is all it costs when nothing escaped.
 */
export async function killMarked (value: string, ms = 2000): Promise<number> {
  const killed = new Set<number>()
  const deadline = Date.now() + ms
  for (;;) {
    const found = await markedProcesses(value)
    if (found.length === 0 || Date.now() > deadline) break
    for (const pid of found) {
      try {
        process.kill(pid, 'SIGKILL')
        killed.add(pid)
      } catch {} // exited meanwhile
    }
    await delay(10)
  }
  return killed.size
}
