// A server's CPU time and resident memory, read from /proc by process id (Linux): the same reading
// for the gateway (the real server entry, which has no channel to the bench) and for the floors.
import { readFile } from 'node:fs/promises'

// Clock ticks per second of /proc/<pid>/stat: 100 on Linux (USER_HZ) for every architecture in use.
const TICKS_PER_S = 100

/** CPU time (user + system, all threads) of the process so far, in µs; 10 ms resolution. */
export async function cpuUs (pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) * (1_000_000 / TICKS_PER_S)
}

/** Resident set size of the process now, in bytes. */
export async function rssBytes (pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)
  if (kb === null) throw new Error(`/proc/${pid}/status has no VmRSS line`)
  return Number(kb[1]) * 1024
}
