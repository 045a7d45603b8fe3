// Child processes of this test process, read from /proc (Linux), to prove none is leaked or left a zombie.
import { readdirSync, readFileSync } from 'node:fs'

export interface ChildProcessInfo {
  pid: number
  /** One-letter state: R, S, D, Z (zombie), T... */
  state: string
  command: string
}

export function childProcesses (parent = process.pid): ChildProcessInfo[] {
  const found: ChildProcessInfo[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue // exited while we looked
    }
    // "pid (comm) state ppid ..." where comm may hold spaces and parentheses.
    const close = stat.lastIndexOf(')')
    const [state, ppid] = stat.slice(close + 2).split(' ')
    if (Number(ppid) !== parent) continue
    found.push({ pid: Number(entry), state, command: stat.slice(stat.indexOf('(') + 1, close) })
  }
  return found
}
