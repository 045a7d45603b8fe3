// How many bytes the workspace's files hold, for the quota (WORKSPACE_MAX_BYTES), and the clean-up
// of temp files an interrupted write left behind. Measured by one walk when the workspace is first
// used in this process (which also removes those leftovers), then kept as a counter that every
// write of the file tools moves by its size difference: no walk per write. Files changed by other
// means (the terminal, an operator) make the counter drift, so it is measured again in the
// background once a minute, and always before a write is refused: a refusal rests on a fresh count.
import type { Dirent } from 'node:fs'
import { lstat, readdir, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { FileToolError, showPath } from './errors.ts'
import { isTempName } from './temp-names.ts'

const REMEASURE_AFTER_MS = 60_000
/** Temp files older than this process belong to no write in progress: a crash left them. */
const PROCESS_STARTED = Date.now() - process.uptime() * 1000

/** Sums the sizes of the regular files under `root` (links not followed); removes stale temp files when asked. */
async function measure (root: string, removeStaleTemps: boolean): Promise<number> {
  let total = 0
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
      if (entry.isDirectory()) folders.push(path)
      if (!entry.isFile()) continue
      const stats = await lstat(path).catch(() => undefined)
      if (stats === undefined) continue
      if (removeStaleTemps && isTempName(entry.name) && stats.mtimeMs < PROCESS_STARTED) {
        await unlink(path).catch(() => {})
        continue
      }
      total += stats.size
    }
  }
  return total
}

export class WorkspaceUsage {
  readonly #root: string
  #bytes: number
  #measuredAt = Date.now()
  #measuring: Promise<void> | undefined

  private constructor (root: string, bytes: number) {
    this.#root = root
    this.#bytes = bytes
  }

  /** Measures `root` for the first time, removing the temp files a crash left there. */
  static async prepare (root: string): Promise<WorkspaceUsage> {
    return new WorkspaceUsage(root, await measure(root, true))
  }

  get bytes (): number {
    return this.#bytes
  }

  #remeasure (): Promise<void> {
    this.#measuring ??= measure(this.#root, false).then((bytes) => {
      this.#bytes = bytes
      this.#measuredAt = Date.now()
    }).finally(() => { this.#measuring = undefined })
    return this.#measuring
  }

  /**
   * Counts a write that changes the workspace by `delta` bytes, or refuses it (nothing counted) when
   * it would pass `maxBytes`. Returns the undo for a write that then fails.
   */
  async reserve (delta: number, maxBytes: number, input: string): Promise<() => void> {
    if (Date.now() - this.#measuredAt > REMEASURE_AFTER_MS) this.#remeasure().catch(() => {})
    if (delta > 0 && this.#bytes + delta > maxBytes) await this.#remeasure()
    if (delta > 0 && this.#bytes + delta > maxBytes) {
      throw new FileToolError(
        `Writing ${showPath(input)} would bring the workspace to ${this.#bytes + delta} bytes, over the workspace quota of ${maxBytes} bytes ` +
        '(WORKSPACE_MAX_BYTES); nothing was written. Delete or shorten files to make room.',
        { path: input, workspace_bytes: this.#bytes, quota_bytes: maxBytes }
      )
    }
    this.#bytes += delta
    return () => { this.#bytes -= delta }
  }
}
