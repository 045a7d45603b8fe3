// Which registered tools have calls running, so that what a configuration reload replaces (a tool
// module's old instance, an MCP server's old connection) is released only once the calls that
// started on it have ended: a reload never pulls a tool from under a call.
import type { ToolEntry } from '../../registry/types.ts'

export class RunningCalls {
  readonly #counts = new Map<ToolEntry, number>()
  readonly #waiters = new Map<ToolEntry, Array<() => void>>()

  enter (entry: ToolEntry): void {
    this.#counts.set(entry, (this.#counts.get(entry) ?? 0) + 1)
  }

  leave (entry: ToolEntry): void {
    const count = (this.#counts.get(entry) ?? 1) - 1
    if (count > 0) {
      this.#counts.set(entry, count)
      return
    }
    this.#counts.delete(entry)
    const waiters = this.#waiters.get(entry)
    if (waiters === undefined) return
    this.#waiters.delete(entry)
    for (const wake of waiters) wake()
  }

  /** Resolves once no call runs on any of `entries` (at once when none does). */
  async ended (entries: Iterable<ToolEntry>): Promise<void> {
    for (const entry of entries) {
      if (!this.#counts.has(entry)) continue
      const { promise, resolve } = Promise.withResolvers<void>()
      const waiters = this.#waiters.get(entry) ?? []
      waiters.push(resolve)
      this.#waiters.set(entry, waiters)
      await promise
    }
  }
}
