// How much the workspace holds, for its quotas (WORKSPACE_MAX_BYTES, WORKSPACE_MAX_FILES), and the
// clean-up of temp files an interrupted write left behind. Measured by one walk when the workspace
// is first used in this process (which also removes those leftovers), then kept as counters that
// every write of the file tools moves: no walk per write.
//
// A write reserves its bytes and new entries before it starts and holds them until it ends, so
// writes running at once cannot together pass a quota each would fit alone. A write that fails
// gives its reservation back; one that succeeds settles it into the counts. Files changed by other
// means (the terminal, an operator) make the counts drift, so they are measured again in the
// background once a minute, after each terminal command, and before a write is refused. A
// measurement only replaces the counts when no write settled while it walked (it may have seen
// that write or not); temp files are left out of it, since the writes still running hold them in
// their reservations.
import type { Dirent } from 'node:fs'
import { lstat, readdir, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { FileToolError, showPath } from './errors.ts'
import { isTempName } from './temp-names.ts'

const REMEASURE_AFTER_MS = 60_000
/** Temp files older than this process belong to no write in progress: a crash left them. */
const PROCESS_STARTED = Date.now() - process.uptime() * 1000

/** What the workspace holds: bytes of its regular files, and its entries (files, folders, links, others). */
export interface Held {
  bytes: number
  entries: number
}

/** The limits a write is checked against (from the gateway's config). */
export interface Quota {
  maxBytes: number
  maxEntries: number
}

/** Walks `root` (links not followed); removes stale temp files when asked. */
async function measure (root: string, removeStaleTemps: boolean): Promise<Held> {
  const held: Held = { bytes: 0, entries: 0 }
  const folders = [root]
  while (folders.length > 0) {
    const folder = folders.pop() as string
    let entries: Dirent[]
    try {
      entries = await readdir(folder, { withFileTypes: true })
    } catch {
      continue
    }
    for (const entry of entries) {
      const path = join(folder, entry.name)
      if (entry.isFile() && isTempName(entry.name)) {
        if (removeStaleTemps) {
          const stats = await lstat(path).catch(() => undefined)
          if (stats !== undefined && stats.mtimeMs < PROCESS_STARTED) await unlink(path).catch(() => {})
        }
        continue
      }
      held.entries++
      if (entry.isDirectory()) folders.push(path)
      if (!entry.isFile()) continue
      const stats = await lstat(path).catch(() => undefined)
      if (stats !== undefined) held.bytes += stats.size
    }
  }
  return held
}

/** A write's claim on the quota: `settle` once it is on disk (with the entries it really made), else `release`. */
export interface Reservation {
  settle: (createdEntries?: number) => void
  release: () => void
}

export class WorkspaceUsage {
  readonly #root: string
  /** What is on disk as last measured, moved by every write settled since. */
  #settled: Held
  /** What the writes still running may add. */
  readonly #reserved: Held = { bytes: 0, entries: 0 }
  /** Writes settled since start: a measurement that walked while one settled is not taken. */
  #settledWrites = 0
  #measuredAt = Date.now()
  #measuring: Promise<void> | undefined

  private constructor (root: string, held: Held) {
    this.#root = root
    this.#settled = held
  }

  /** Measures `root` for the first time, removing the temp files a crash left there. */
  static async prepare (root: string): Promise<WorkspaceUsage> {
    return new WorkspaceUsage(root, await measure(root, true))
  }

  /** Bytes held now, counting what writes in progress reserved. */
  get bytes (): number {
    return this.#settled.bytes + this.#reserved.bytes
  }

  /** Entries held now, counting what writes in progress reserved. */
  get entries (): number {
    return this.#settled.entries + this.#reserved.entries
  }

  /** Measures again (after a terminal command, or before a refusal); resolves once the counts are fresh. */
  remeasure (): Promise<void> {
    this.#measuring ??= (async () => {
      const before = this.#settledWrites
      const held = await measure(this.#root, false)
      if (this.#settledWrites === before) this.#settled = held
      this.#measuredAt = Date.now()
    })().finally(() => { this.#measuring = undefined })
    return this.#measuring
  }

  #fits (bytes: number, entries: number, quota: Quota): boolean {
    return (bytes <= 0 || this.bytes + bytes <= quota.maxBytes) && (entries <= 0 || this.entries + entries <= quota.maxEntries)
  }

  /**
   * Reserves a write that changes the workspace by `bytes` and adds `entries` (a new file, the
   * folders it needs), or refuses it (nothing reserved) when either would pass its quota.
   */
  async reserve (bytes: number, entries: number, quota: Quota, input: string): Promise<Reservation> {
    if (Date.now() - this.#measuredAt > REMEASURE_AFTER_MS) this.remeasure().catch(() => {})
    if (!this.#fits(bytes, entries, quota)) await this.remeasure()
    if (!this.#fits(bytes, entries, quota)) throw this.#refusal(bytes, entries, quota, input)
    const claim = { bytes: Math.max(0, bytes), entries: Math.max(0, entries) }
    this.#reserved.bytes += claim.bytes
    this.#reserved.entries += claim.entries
    let open = true
    const release = (): boolean => {
      if (!open) return false
      open = false
      this.#reserved.bytes -= claim.bytes
      this.#reserved.entries -= claim.entries
      return true
    }
    return {
      settle: (createdEntries = entries) => {
        if (!release()) return
        this.#settled.bytes += bytes
        this.#settled.entries += createdEntries
        this.#settledWrites++
      },
      release: () => { release() }
    }
  }

  #refusal (bytes: number, entries: number, quota: Quota, input: string): FileToolError {
    if (bytes > 0 && this.bytes + bytes > quota.maxBytes) {
      return new FileToolError(
        `Writing ${showPath(input)} would bring the workspace to ${this.bytes + bytes} bytes, over the workspace quota of ${quota.maxBytes} bytes ` +
        '(WORKSPACE_MAX_BYTES); nothing was written. Delete or shorten files to make room.',
        { path: input, workspace_bytes: this.bytes, quota_bytes: quota.maxBytes }
      )
    }
    return new FileToolError(
      `Writing ${showPath(input)} would bring the workspace to ${this.entries + entries} files and folders, over the workspace quota of ${quota.maxEntries} ` +
      '(WORKSPACE_MAX_FILES); nothing was written. Delete files or folders to make room.',
      { path: input, workspace_entries: this.entries, quota_entries: quota.maxEntries }
    )
  }

  /** Runs `write` under a reservation: settled with the entries it reports having made, released when it throws. */
  async counted<T extends { createdEntries?: number }> (bytes: number, entries: number, quota: Quota, input: string, write: () => Promise<T>): Promise<T> {
    const reservation = await this.reserve(bytes, entries, quota, input)
    try {
      const done = await write()
      reservation.settle(done.createdEntries)
      return done
    } catch (error) {
      reservation.release()
      throw error
    }
  }
}
