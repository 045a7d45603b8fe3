// The background processes of one app, plus the foreground commands still running, so that
// `process` can list, poll and kill them and shutdown can stop them all. The class is stateless
// at module level: the tool module creates one table per app (see tools/terminal/terminal.ts).
// Each background process belongs to the API key whose call started it: another key's calls cannot
// see, poll or kill it (the command line may hold secrets, and its output certainly may).
import type { SpawnedCommand } from './spawn-command.ts'

export type ProcessStatus = 'running' | 'exited' | 'killed'

export interface BackgroundProcess {
  readonly id: string
  readonly command: string
  /** Relative to the workspace ('.' for the root). */
  readonly workdir: string
  readonly pid: number
  /** The API key that started it (ctx.principal); undefined on a gateway without keys. */
  readonly owner: string | undefined
  readonly startedAt: number
  readonly proc: SpawnedCommand
  status: ProcessStatus
  exitCode: number | null
  signal: NodeJS.Signals | null
  endedAt?: number
  /** Where the previous poll stopped reading the output. */
  cursor: number
  killRequested: boolean
}

export interface ProcessTableOptions {
  /** Background processes running at once. */
  maxRunning?: number
  /** Entries kept in the table; the oldest finished ones are dropped beyond it. */
  maxKept?: number
  now?: () => number
}

export class ProcessTable {
  readonly maxRunning: number
  readonly maxKept: number
  readonly #now: () => number
  readonly #entries = new Map<string, BackgroundProcess>()
  readonly #foreground = new Set<SpawnedCommand>()
  #nextId = 1
  #reserved = 0
  #disposing: Promise<void> | undefined
  #exitHook: (() => void) | undefined

  constructor (options: ProcessTableOptions = {}) {
    this.maxRunning = options.maxRunning ?? 16
    this.maxKept = Math.max(options.maxKept ?? 64, this.maxRunning)
    this.#now = options.now ?? Date.now
  }

  get disposed (): boolean {
    return this.#disposing !== undefined
  }

  get runningCount (): number {
    let count = 0
    for (const entry of this.#entries.values()) if (entry.status === 'running') count++
    return count
  }

  /** Claims a slot for a background process before it is spawned; null when all are taken. */
  reserve (): (() => void) | null {
    if (this.runningCount + this.#reserved >= this.maxRunning) return null
    this.#reserved++
    let released = false
    return () => {
      if (!released) this.#reserved--
      released = true
    }
  }

  /** The ids of `owner`'s processes. */
  ids (owner: string | undefined): string[] {
    return this.list(owner).map((entry) => entry.id)
  }

  /** `owner`'s process `id`; another owner's is undefined, as if it did not exist. */
  get (id: string, owner: string | undefined): BackgroundProcess | undefined {
    const entry = this.#entries.get(id)
    return entry?.owner === owner ? entry : undefined
  }

  /** `owner`'s processes, oldest first. */
  list (owner: string | undefined): BackgroundProcess[] {
    return [...this.#entries.values()].filter((entry) => entry.owner === owner)
  }

  /** Records a started background process; null (and the process killed) once the table is disposed. */
  addBackground (proc: SpawnedCommand, command: string, workdir: string, owner: string | undefined): BackgroundProcess | null {
    if (this.disposed) {
      proc.kill().catch(() => {})
      return null
    }
    this.#installExitHook()
    const entry: BackgroundProcess = {
      id: `proc_${this.#nextId++}`,
      command,
      workdir,
      pid: proc.pid,
      owner,
      startedAt: this.#now(),
      proc,
      status: 'running',
      exitCode: null,
      signal: null,
      cursor: 0,
      killRequested: false
    }
    this.#entries.set(entry.id, entry)
    proc.done.then((exit) => {
      entry.exitCode = exit.exitCode
      entry.signal = exit.signal
      entry.status = entry.killRequested ? 'killed' : 'exited'
      entry.endedAt = this.#now()
    }, () => {})
    this.#evictFinished()
    return entry
  }

  /** Kills the process group of `entry` and waits for it to be over. Safe to repeat. */
  async kill (entry: BackgroundProcess): Promise<void> {
    if (entry.status === 'running') entry.killRequested = true
    await entry.proc.kill()
    await entry.proc.done
  }

  /** Tracks a foreground command until `done`, so shutdown can kill it; false once disposed (then it is killed). */
  trackForeground (proc: SpawnedCommand): boolean {
    if (this.disposed) {
      proc.kill().catch(() => {})
      return false
    }
    this.#installExitHook()
    this.#foreground.add(proc)
    proc.done.finally(() => this.#foreground.delete(proc)).catch(() => {})
    return true
  }

  /** Kills every process group of the table and waits until they are gone. Idempotent. */
  dispose (): Promise<void> {
    this.#disposing ??= (async () => {
      const all = [...this.#foreground, ...[...this.#entries.values()].map((entry) => {
        if (entry.status === 'running') entry.killRequested = true
        return entry.proc
      })]
      await Promise.all(all.map(async (proc) => {
        await proc.kill()
        await proc.done
      }))
      if (this.#exitHook !== undefined) process.removeListener('exit', this.#exitHook)
      this.#exitHook = undefined
    })()
    return this.#disposing
  }

  #evictFinished (): void {
    for (const [id, entry] of this.#entries) {
      if (this.#entries.size <= this.maxKept) return
      if (entry.status !== 'running') this.#entries.delete(id)
    }
  }

  // Last resort when the gateway exits without shutting down cleanly (process.exit, a crash that
  // still runs 'exit' listeners): the groups are detached and would otherwise outlive it.
  #installExitHook (): void {
    if (this.#exitHook !== undefined) return
    this.#exitHook = () => {
      for (const proc of [...this.#foreground, ...[...this.#entries.values()].map((entry) => entry.proc)]) {
        if (proc.finished) continue
        try {
          process.kill(-proc.pid, 'SIGKILL')
        } catch {}
      }
    }
    process.on('exit', this.#exitHook)
  }
}
