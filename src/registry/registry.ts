// The tool registry: a map of tools keyed by name, changed only through register / deregister /
// registerAlias. Every change swaps in a new immutable snapshot (copy-on-write), bumps the
// generation and emits one 'change' event, so readers that hold a snapshot across awaits (an
// availability pass, an MCP refresh in between) always see one consistent state.
import { EventEmitter } from 'node:events'
import type { Logger } from 'pino'
import { InvalidToolError, ToolCollisionError } from '../errors.ts'
import {
  DEFAULT_EMOJI, DEFAULT_MAX_RESULT_SIZE_CHARS,
  type CheckFn, type JsonSchema, type RegisterOptions, type RegistryChange, type RegistrySnapshot, type ToolEntry, type ToolOrigin
} from './types.ts'
import { validateRegistration } from './validate-registration.ts'

const BUILTIN: ToolOrigin = Object.freeze({ kind: 'builtin' })

export interface ToolRegistryOptions {
  logger?: Pick<Logger, 'warn' | 'debug'>
}

function describeOrigin (origin: ToolOrigin): string {
  if (origin.kind === 'plugin') return `plugin "${origin.plugin}"`
  if (origin.kind === 'mcp') return `MCP server "${origin.server}"`
  return 'built-in tools'
}

function sameSource (a: ToolOrigin, b: ToolOrigin): boolean {
  if (a.kind !== b.kind) return false
  if (a.kind === 'mcp' && b.kind === 'mcp') return a.server === b.server
  if (a.kind === 'plugin' && b.kind === 'plugin') return a.plugin === b.plugin
  return true
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
    validateRegistration(options)
    const origin = options.origin ?? BUILTIN
    const current = this.#snapshot
    const existing = current.tools.get(options.name)
    if (existing) this.#assertMayReplace(existing, options, origin)

    const entry: ToolEntry = Object.freeze({
      name: options.name,
      toolset: options.toolset,
      schema: Object.freeze({ ...options.schema, parameters: options.schema.parameters as JsonSchema }),
      handler: options.handler,
      checkFn: options.checkFn,
      requiresEnv: Object.freeze([...(options.requiresEnv ?? [])]),
      description: options.description || options.schema.description || '',
      emoji: options.emoji || DEFAULT_EMOJI,
      maxResultSizeChars: options.maxResultSizeChars ?? DEFAULT_MAX_RESULT_SIZE_CHARS,
      timeoutMs: options.timeoutMs,
      dynamicSchemaOverrides: options.dynamicSchemaOverrides,
      dispose: options.dispose,
      origin
    })

    const tools = new Map(current.tools)
    tools.set(entry.name, entry)
    let toolsetChecks = current.toolsetChecks
    if (entry.checkFn && !toolsetChecks.has(entry.toolset)) {
      toolsetChecks = new Map(toolsetChecks).set(entry.toolset, entry.checkFn)
    }
    let aliases = current.aliases
    if (existing && existing.toolset !== entry.toolset) {
      ({ toolsetChecks, aliases } = this.#dropToolsetIfEmpty(existing.toolset, tools, toolsetChecks, aliases))
    }
    this.#commit({ tools, toolsetChecks, aliases }, {
      type: 'register', name: entry.name, toolset: entry.toolset, replaced: existing !== undefined
    })
    return entry
  }

  /** Removes a tool; an unknown name is a no-op. Returns whether something was removed. */
  deregister (name: string): boolean {
    const current = this.#snapshot
    const existing = current.tools.get(name)
    if (!existing) return false
    const tools = new Map(current.tools)
    tools.delete(name)
    const { toolsetChecks, aliases } = this.#dropToolsetIfEmpty(existing.toolset, tools, current.toolsetChecks, current.aliases)
    this.#commit({ tools, toolsetChecks, aliases }, { type: 'deregister', name, toolset: existing.toolset })
    return true
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

  /** The tool registered under `name` now, if any. */
  getEntry (name: string): ToolEntry | undefined {
    return this.#snapshot.tools.get(name)
  }

  // ---- internals ----

  #assertMayReplace (existing: ToolEntry, options: RegisterOptions, origin: ToolOrigin): void {
    const name = options.name
    if (origin.kind === 'mcp' && !sameSource(existing.origin, origin)) {
      throw new ToolCollisionError(`${describeOrigin(origin)} cannot register "${name}": it is already provided by ${describeOrigin(existing.origin)} (toolset "${existing.toolset}"); MCP tools never override`)
    }
    // A silent replace is for the same source re-registering (a re-import, an MCP refresh); a
    // different source reusing a name, even in the same toolset, must say so with override.
    if (existing.toolset === options.toolset && sameSource(existing.origin, origin)) return
    if (!options.override) {
      throw new ToolCollisionError(`${describeOrigin(origin)} cannot register "${name}" in toolset "${options.toolset}": toolset "${existing.toolset}" (${describeOrigin(existing.origin)}) already has it; pass override: true to replace it`)
    }
    if (origin.kind === 'plugin' && !origin.allowToolOverride) {
      throw new ToolCollisionError(`plugin "${origin.plugin}" cannot override "${name}" of toolset "${existing.toolset}": the operator has not set allowToolOverride for this plugin`)
    }
    this.#logger?.warn({ tool: name, from: existing.toolset, to: options.toolset }, 'tool overridden')
  }

  #toolsetHasTools (tools: ReadonlyMap<string, ToolEntry>, toolset: string): boolean {
    for (const entry of tools.values()) if (entry.toolset === toolset) return true
    return false
  }

  /** When a toolset loses its last tool, its check and aliases go too: no phantom toolsets. */
  #dropToolsetIfEmpty (
    toolset: string,
    tools: ReadonlyMap<string, ToolEntry>,
    toolsetChecks: ReadonlyMap<string, CheckFn>,
    aliases: ReadonlyMap<string, string>
  ): Pick<RegistrySnapshot, 'toolsetChecks' | 'aliases'> {
    if (this.#toolsetHasTools(tools, toolset)) return { toolsetChecks, aliases }
    const checks = new Map(toolsetChecks)
    checks.delete(toolset)
    const kept = new Map([...aliases].filter(([, target]) => target !== toolset))
    return { toolsetChecks: checks, aliases: kept }
  }

  #commit (next: Omit<RegistrySnapshot, 'generation'>, change: DistributiveOmit<RegistryChange, 'generation'>): void {
    const generation = this.#snapshot.generation + 1
    this.#snapshot = Object.freeze({ ...next, generation })
    this.#logger?.debug({ ...change, generation }, 'registry changed')
    this.emit('change', { ...change, generation } as RegistryChange)
  }
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never
