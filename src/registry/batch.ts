// Several registrations and removals applied as one change. The registry copies its map on every
// change (copy-on-write snapshots), so an MCP server listing thousands of tools, registered one by
// one, copied the map once per tool: quadratic, seconds of blocked event loop for 3 000 tools. A
// batch works on one copy and the registry commits it once: one snapshot, one generation, one event.
import type { Logger } from 'pino'
import { ToolCollisionError } from '../shared/errors.ts'
import {
  DEFAULT_EMOJI, DEFAULT_MAX_RESULT_SIZE_CHARS,
  type CheckFn, type JsonSchema, type RegisterOptions, type RegistrySnapshot, type ToolEntry, type ToolOrigin
} from './types.ts'
import { validateRegistration } from './validate-registration.ts'
import { copyAnnotations } from './annotations.ts'

const BUILTIN: ToolOrigin = Object.freeze({ kind: 'builtin' })

type Warn = Pick<Logger, 'warn'> | undefined

/** The fields of a snapshot a batch produces; the registry adds the generation. */
export type SnapshotContents = Omit<RegistrySnapshot, 'generation'>

export class RegistryBatch {
  readonly #tools: Map<string, ToolEntry>
  #toolsetChecks: ReadonlyMap<string, CheckFn>
  readonly #aliases: ReadonlyMap<string, string>
  readonly #logger: Warn
  /** Toolsets that lost a tool: each is dropped at the end if nothing is left in it. */
  readonly #emptied = new Set<string>()
  /** Names registered and removed, in order, for the change event. */
  readonly registered: string[] = []
  readonly deregistered: string[] = []

  constructor (snapshot: RegistrySnapshot, logger: Warn) {
    this.#tools = new Map(snapshot.tools)
    this.#toolsetChecks = snapshot.toolsetChecks
    this.#aliases = snapshot.aliases
    this.#logger = logger
  }

  /** As `ToolRegistry.register`; a refused registration throws and leaves the batch as it was. */
  register (options: RegisterOptions): ToolEntry {
    validateRegistration(options)
    const origin = options.origin ?? BUILTIN
    const existing = this.#tools.get(options.name)
    if (existing) assertMayReplace(existing, options, origin, this.#logger)
    const entry = createEntry(options, origin)
    this.#tools.set(entry.name, entry)
    if (entry.checkFn && !this.#toolsetChecks.has(entry.toolset)) {
      this.#toolsetChecks = new Map(this.#toolsetChecks).set(entry.toolset, entry.checkFn)
    }
    if (existing && existing.toolset !== entry.toolset) this.#emptied.add(existing.toolset)
    this.registered.push(entry.name)
    return entry
  }

  /** As `ToolRegistry.deregister`: whether something was removed. */
  deregister (name: string): boolean {
    const existing = this.#tools.get(name)
    if (!existing) return false
    this.#tools.delete(name)
    this.#emptied.add(existing.toolset)
    this.deregistered.push(name)
    return true
  }

  get changed (): boolean {
    return this.registered.length + this.deregistered.length > 0
  }

  /** The snapshot after the batch. A toolset that lost its last tool loses its check and aliases too: no phantom toolsets. */
  contents (): SnapshotContents {
    const tools = this.#tools
    if (this.#emptied.size === 0) return { tools, toolsetChecks: this.#toolsetChecks, aliases: this.#aliases }
    const live = new Set<string>()
    for (const entry of tools.values()) live.add(entry.toolset)
    const gone = [...this.#emptied].filter((toolset) => !live.has(toolset))
    if (gone.length === 0) return { tools, toolsetChecks: this.#toolsetChecks, aliases: this.#aliases }
    const toolsetChecks = new Map(this.#toolsetChecks)
    for (const toolset of gone) toolsetChecks.delete(toolset)
    const aliases = new Map([...this.#aliases].filter(([, target]) => !gone.includes(target)))
    return { tools, toolsetChecks, aliases }
  }
}

function createEntry (options: RegisterOptions, origin: ToolOrigin): ToolEntry {
  return Object.freeze({
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
    prepare: options.prepare,
    dispose: options.dispose,
    annotations: copyAnnotations(options.annotations),
    origin
  })
}

export function describeOrigin (origin: ToolOrigin): string {
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

function assertMayReplace (existing: ToolEntry, options: RegisterOptions, origin: ToolOrigin, logger: Warn): void {
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
  logger?.warn({ tool: name, from: existing.toolset, to: options.toolset }, 'tool overridden')
}
