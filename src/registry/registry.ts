// The tool registry: a map of tools keyed by name, changed only through register / deregister /
// registerAlias. Every change swaps in a new immutable snapshot (copy-on-write), bumps the
// generation and emits one 'change' event, so readers that hold a snapshot across awaits (an
// availability pass, an MCP refresh in between) always see one consistent state.
import { EventEmitter } from 'node:events'
import type { Logger } from 'pino'
import { InvalidToolError, ToolCollisionError } from '../shared/errors.ts'
import { RegistryBatch, type SnapshotContents } from './batch.ts'
import type { RegisterOptions, RegistryChange, RegistrySnapshot, ToolEntry } from './types.ts'

export interface ToolRegistryOptions {
  logger?: Pick<Logger, 'warn' | 'debug'>
}

export class ToolRegistry extends EventEmitter<{ change: [RegistryChange] }> {
  #snapshot: RegistrySnapshot = Object.freeze({
    generation: 0,
    tools: new Map(),
    toolsetChecks: new Map(),
    aliases: new Map()
  })

  readonly #logger?: Pick<Logger, 'warn' | 'debug'>

  constructor (options: ToolRegistryOptions = {}) {
    super()
    this.#logger = options.logger
  }

  /** The current immutable view; hold it to read several things consistently. */
  snapshot (): RegistrySnapshot {
    return this.#snapshot
  }

  get generation (): number {
    return this.#snapshot.generation
  }

  /**
   * Adds a tool. Same name and same toolset replaces (a re-import, an MCP refresh); a different
   * toolset is refused unless `override` (and, for a plugin, the operator's `allowToolOverride`);
   * an MCP tool never replaces a tool from anywhere else.
   */
  register (options: RegisterOptions): ToolEntry {
    const batch = new RegistryBatch(this.#snapshot, this.#logger)
    const replaced = this.#snapshot.tools.has(options.name)
    const entry = batch.register(options)
    this.#commit(batch.contents(), { type: 'register', name: entry.name, toolset: entry.toolset, replaced })
    return entry
  }

  /** Removes a tool; an unknown name is a no-op. Returns whether something was removed. */
  deregister (name: string): boolean {
    const existing = this.#snapshot.tools.get(name)
    if (!existing) return false
    const batch = new RegistryBatch(this.#snapshot, this.#logger)
    batch.deregister(name)
    this.#commit(batch.contents(), { type: 'deregister', name, toolset: existing.toolset })
    return true
  }

  /**
   * Several registrations and removals as one change (one snapshot, one generation, one 'batch'
   * event), for sources that change many tools at once. A registration the batch refuses throws
   * inside `apply` (catch it there to go on); if `apply` throws, nothing changes.
   */
  update (apply: (batch: RegistryBatch) => void): void {
    const batch = new RegistryBatch(this.#snapshot, this.#logger)
    apply(batch)
    if (!batch.changed) return
    this.#commit(batch.contents(), { type: 'batch', registered: batch.registered, deregistered: batch.deregistered })
  }

  /** Makes `alias` another name for a registered toolset (MCP server `foo` → toolset `mcp-foo`). */
  registerAlias (alias: string, toolset: string): void {
    const current = this.#snapshot
    if (typeof alias !== 'string' || alias.trim() === '') throw new InvalidToolError('alias must be a non-empty string')
    if (!this.#toolsetHasTools(current.tools, toolset)) {
      throw new InvalidToolError(`cannot alias "${alias}" to toolset "${toolset}": it has no registered tools`)
    }
    if (alias !== toolset && this.#toolsetHasTools(current.tools, alias)) {
      throw new ToolCollisionError(`cannot alias "${alias}" to toolset "${toolset}": "${alias}" is already a toolset`)
    }
    const taken = current.aliases.get(alias)
    if (taken === toolset) return
    if (taken !== undefined) {
      throw new ToolCollisionError(`cannot alias "${alias}" to toolset "${toolset}": it already names toolset "${taken}"`)
    }
    const aliases = new Map(current.aliases)
    aliases.set(alias, toolset)
    this.#commit({ tools: current.tools, toolsetChecks: current.toolsetChecks, aliases }, { type: 'alias', alias, toolset })
  }

  /**
   * The same tools as a new generation: after a configuration reload changed what names resolve to
   * (custom toolsets, the toolsets of a key), so that everything cached per generation or snapshot
   * (definitions, key scopes, MCP list_changed) is worked out again.
   */
  reconfigured (): void {
    const { tools, toolsetChecks, aliases } = this.#snapshot
    this.#commit({ tools, toolsetChecks, aliases }, { type: 'reconfigured' })
  }

  /** The tool registered under `name` now, if any. */
  getEntry (name: string): ToolEntry | undefined {
    return this.#snapshot.tools.get(name)
  }

  // ---- internals ----

  #toolsetHasTools (tools: ReadonlyMap<string, ToolEntry>, toolset: string): boolean {
    for (const entry of tools.values()) if (entry.toolset === toolset) return true
    return false
  }

  #commit (next: SnapshotContents, change: DistributiveOmit<RegistryChange, 'generation'>): void {
    const generation = this.#snapshot.generation + 1
    this.#snapshot = Object.freeze({ ...next, generation })
    this.#logger?.debug({ ...change, generation }, 'registry changed')
    this.emit('change', { ...change, generation } as RegistryChange)
  }
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never
