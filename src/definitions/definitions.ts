// Builds the tool definitions handed to a model: OpenAI Chat Completions function tools, sorted by
// name, unavailable tools left out, dynamic overrides merged. The result of a pass is cached per
// (generation, available tools, override values) and shared deep-frozen, with its JSON text and
// ETag, so a repeated GET /definitions costs a cache look-up, and no caller can corrupt it.
import type { Logger } from 'pino'
import type { AvailabilityChecker } from '../availability/checker.ts'
import type { ToolRegistry } from '../registry/registry.ts'
import type { DeclaredTool, SchemaView, ToolEntry } from '../registry/types.ts'
import { isRecord } from '../shared/objects.ts'
import type { Variant } from './formats/formats.ts'
import type { FormattedTool, OpenAIFunctionTool } from './formats/shapes.ts'
import type { DefinitionsPayload } from './payload.ts'

export type { DefinitionsPayload, OpenAIFunctionTool }
import { deepFreeze } from './freeze.ts'
import { VariantPayloads } from './variants.ts'
import { etagOf } from './etag.ts'

function declared (entry: ToolEntry): DeclaredTool {
  return { name: entry.name, description: entry.description, parameters: entry.schema.parameters }
}

/**
 * What a dynamic override reads: the answer's tools as declared, and every tool of the caller's
 * scope (`scope`: its names; none: the answer's), each listed only if one asks.
 */
function viewOf (available: readonly ToolEntry[], scope: (() => Iterable<string>) | undefined, inScope: (name: string) => ToolEntry | undefined): SchemaView {
  let tools: readonly DeclaredTool[] | undefined
  let callable: readonly DeclaredTool[] | undefined
  return {
    get tools () {
      tools ??= available.map(declared)
      return tools
    },
    get scope () {
      if (scope === undefined) return this.tools
      callable ??= [...new Set(scope())].sort().map(inScope).filter((entry) => entry !== undefined).map(declared)
      return callable
    }
  }
}

export interface DefinitionsBuilderOptions {
  registry: ToolRegistry
  availability: AvailabilityChecker
  logger: Pick<Logger, 'warn'>
  /** Distinct (generation, selection) results kept; the oldest goes first. */
  maxCacheEntries?: number
}

/** What one selection resolves to in one generation, and its last answer. */
interface Plan {
  generation: number
  entries: ToolEntry[]
  /** Entries whose availability or schema can change without a registry change. */
  volatile: ToolEntry[]
  /** The names of every tool the caller may call, for dynamic overrides (SchemaView.scope). */
  scope?: () => Iterable<string>
  last?: LastAnswer
}

interface LastAnswer {
  key: string
  payload: DefinitionsPayload
  /** Per volatile entry, whether it was available in this answer. */
  available: boolean[]
}

export class DefinitionsBuilder {
  readonly #options: DefinitionsBuilderOptions
  readonly #cache = new Map<string, DefinitionsPayload>()
  readonly #plans = new Map<string, Plan>()
  readonly #maxEntries: number
  readonly #variants: VariantPayloads

  constructor (options: DefinitionsBuilderOptions) {
    this.#options = options
    this.#maxEntries = options.maxCacheEntries ?? 256
    this.#variants = new VariantPayloads((name) => options.registry.snapshot().tools.get(name))
    // Entries of an older generation can never be hit again.
    options.registry.on('change', () => {
      this.#cache.clear()
      this.#plans.clear()
    })
  }

  /** Definitions of the available tools among `names` (unknown names are ignored). */
  async build (names: Iterable<string>): Promise<DefinitionsPayload> {
    return this.#answer(this.#plan(names))
  }

  /**
   * The same, for a selection the caller names with `selectionKey` (e.g. the query string): the
   * selection is resolved once per generation, and while none of its tools has a dynamic override
   * and every availability verdict is still cached as it was, a repeated request costs a map look-up
   * and one cache read per checked tool (the built-ins have checks: this is the common path).
   */
  async buildFor (selectionKey: string, select: () => Iterable<string>, scope?: () => Iterable<string>): Promise<DefinitionsPayload> {
    const generation = this.#options.registry.generation
    let plan = this.#plans.get(selectionKey)
    if (plan === undefined || plan.generation !== generation) {
      plan = this.#plan(select())
      // The key names the caller's scope too: any request with this key has the same one.
      plan.scope = scope
      this.#remember(this.#plans, selectionKey, plan)
    }
    if (plan.last !== undefined && this.#unchanged(plan.volatile, plan.last)) return plan.last.payload
    return this.#answer(plan)
  }

  /** True while no volatile tool can have changed the last answer: no override to re-read, each verdict still fresh and the same. */
  #unchanged (volatile: ToolEntry[], last: LastAnswer): boolean {
    for (let i = 0; i < volatile.length; i++) {
      if (volatile[i].dynamicSchemaOverrides !== undefined) return false
      const verdict = this.#options.availability.known(volatile[i])
      if (verdict === undefined || verdict.available !== last.available[i]) return false
    }
    return true
  }

  /**
   * The same selection in another format (or strict): derived from, and cached with, the default
   * answer, so each variant has its own payload and ETag; tools a variant cannot express are left out.
   */
  async buildVariant (selectionKey: string, select: () => Iterable<string>, variant: Variant, scope?: () => Iterable<string>): Promise<DefinitionsPayload<FormattedTool>> {
    const base = await this.buildFor(selectionKey, select, scope)
    return this.#variants.of(base, variant)
  }

  /** A private copy the caller may change freely. */
  async definitions (names: Iterable<string>): Promise<OpenAIFunctionTool[]> {
    return structuredClone((await this.build(names)).tools) as OpenAIFunctionTool[]
  }

  #plan (names: Iterable<string>): Plan {
    const snapshot = this.#options.registry.snapshot()
    const entries: ToolEntry[] = []
    for (const name of new Set(names)) {
      const entry = snapshot.tools.get(name)
      if (entry !== undefined) entries.push(entry)
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : 1))
    const volatile = entries.filter((e) => e.checkFn !== undefined || e.dynamicSchemaOverrides !== undefined)
    return { generation: snapshot.generation, entries, volatile }
  }

  async #answer (plan: Plan): Promise<DefinitionsPayload> {
    const verdicts = await this.#options.availability.tools(plan.volatile)
    const available = plan.entries.filter((e) => verdicts.get(e.name)?.available ?? true)
    const view = viewOf(available, plan.scope, (name) => this.#callable(name))
    const overrides = available.map((entry) => this.#override(entry, view))
    const key = `${plan.generation}\n${available.map((e) => e.name).join(',')}\n${JSON.stringify(overrides)}`
    const availableVolatile = plan.volatile.map((e) => verdicts.get(e.name)?.available ?? true)
    if (plan.last?.key === key) {
      plan.last.available = availableVolatile
      return plan.last.payload
    }
    let payload = this.#cache.get(key)
    if (payload === undefined) {
      const tools = deepFreeze(structuredClone(available.map((entry, i) => this.#toOpenAI(entry, overrides[i]))))
      const json = JSON.stringify(tools)
      const etag = etagOf(json)
      payload = Object.freeze({ generation: plan.generation, tools, json, bytes: Buffer.from(json, 'utf8'), etag })
      this.#remember(this.#cache, key, payload)
    }
    plan.last = { key, payload, available: availableVolatile }
    return payload
  }

  /** A tool of the caller's scope, unless its last availability verdict says it is unavailable. */
  #callable (name: string): ToolEntry | undefined {
    const entry = this.#options.registry.snapshot().tools.get(name)
    return entry === undefined || this.#options.availability.known(entry)?.available === false ? undefined : entry
  }

  #remember<V> (map: Map<string, V>, key: string, value: V): void {
    if (map.size >= this.#maxEntries && !map.has(key)) map.delete(map.keys().next().value as string)
    map.set(key, value)
  }

  #override (entry: ToolEntry, view: SchemaView): Record<string, unknown> | undefined {
    if (entry.dynamicSchemaOverrides === undefined) return undefined
    try {
      const value = entry.dynamicSchemaOverrides(view)
      if (value === undefined || value === null) return undefined
      if (!isRecord(value)) throw new TypeError(`expected an object, got ${Array.isArray(value) ? 'array' : typeof value}`)
      return value
    } catch (err) {
      this.#options.logger.warn({ err, tool: entry.name }, 'dynamic schema override failed; using the static schema')
      return undefined
    }
  }

  #toOpenAI (entry: ToolEntry, override: Record<string, unknown> | undefined): OpenAIFunctionTool {
    const merged: Record<string, unknown> = { ...entry.schema, ...override }
    const parameters = isRecord(merged.parameters) && merged.parameters.type === 'object'
      ? merged.parameters
      : entry.schema.parameters
    const description = typeof override?.description === 'string' ? override.description : entry.description
    // The name is always the registry's: an override cannot make the model call something else.
    return { type: 'function', function: { name: entry.name, description, parameters } }
  }
}
