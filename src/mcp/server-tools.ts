// Mirrors one MCP server's tools into the registry: names, filters, normalised schemas, one shared
// availability probe that reads the connection state, utility tools for resources and prompts, and
// a debounced diff refresh on notifications/tools/list_changed (add, replace changed, remove gone).
import type { Tool } from '@modelcontextprotocol/client'
import type { Logger } from 'pino'
import type { ToolRegistry } from '../registry/registry.ts'
import { toolResult } from '../registry/tool-result.ts'
import type { CheckFn, JsonSchema, ToolHandler } from '../registry/types.ts'
import { REAL_CLOCK, type McpClock, type McpConnection } from './connection.ts'
import { assignToolNames, mcpToolName, mcpToolsetName } from './naming.ts'
import { describeContentBlock, describeResourceContents } from './result.ts'
import { normalizeInputSchema } from './schema.ts'

export interface ToolFilter {
  /** Raw MCP names to keep; wins over exclude. */
  include?: readonly string[]
  exclude?: readonly string[]
}

export interface McpServerToolsOptions {
  server: string
  connection: McpConnection
  registry: ToolRegistry
  logger: Logger
  filter?: ToolFilter
  /** Per-call deadline the dispatcher enforces (it aborts the handler's signal, which cancels the MCP request). */
  timeoutMs?: number
  /** Quiet period after a list_changed before the list is fetched again. */
  debounceMs?: number
  clock?: McpClock
}

export interface SyncReport {
  added: string[]
  updated: string[]
  removed: string[]
  skipped: Array<{ tool: string, reason: string }>
}

interface Desired {
  name: string
  /** The MCP tool name, or `#utility` for the resource and prompt helpers. */
  raw: string
  description: string
  parameters: JsonSchema
  handler: ToolHandler
  fingerprint: string
}

const MAX_DESCRIPTION_CHARS = 8_000
const NO_ARGUMENTS: JsonSchema = { type: 'object', properties: {}, additionalProperties: false }

function optional<T extends Record<string, unknown>> (value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== '')) as Partial<T>
}

function describeTool (server: string, tool: Tool): string {
  const title = typeof tool.title === 'string' ? tool.title : typeof tool.annotations?.title === 'string' ? tool.annotations.title : ''
  const description = typeof tool.description === 'string' ? tool.description.trim() : ''
  let text = title && !description.startsWith(title) ? (description ? `${title}: ${description}` : title) : description
  if (text === '') text = `Tool "${tool.name}" of MCP server "${server}".`
  return text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS)}…` : text
}

export class McpServerTools {
  readonly server: string
  readonly toolset: string
  readonly #connection: McpConnection
  readonly #registry: ToolRegistry
  readonly #logger: Logger
  readonly #filter: ToolFilter
  readonly #timeoutMs: number | undefined
  readonly #debounceMs: number
  readonly #clock: McpClock
  /** registry name → fingerprint of what we registered under it. */
  readonly #registered = new Map<string, string>()
  readonly #check: CheckFn
  #debounce: unknown
  #chain: Promise<unknown> = Promise.resolve()
  #aliasRefused = false
  #disposed = false
  readonly #onConnected = (): void => { this.apply(this.#connection.tools) }
  readonly #onToolsChanged = (): void => this.#scheduleRefresh()

  constructor (options: McpServerToolsOptions) {
    this.server = options.server
    this.toolset = mcpToolsetName(options.server)
    this.#connection = options.connection
    this.#registry = options.registry
    this.#logger = options.logger
    this.#filter = options.filter ?? {}
    this.#timeoutMs = options.timeoutMs
    this.#debounceMs = options.debounceMs ?? 250
    this.#clock = options.clock ?? REAL_CLOCK
    const connection = this.#connection
    // One probe for every tool of the server: the checker runs it once per pass, and it only reads state.
    this.#check = Object.defineProperty(
      () => connection.state === 'connected' ? true : { available: false, reason: connection.describe() },
      'name', { value: `mcp:${options.server}` }
    ) as CheckFn
    connection.on('connected', this.#onConnected)
    connection.on('tools_changed', this.#onToolsChanged)
  }

  /** Registry names of the tools registered for this server, sorted. */
  get names (): string[] {
    return [...this.#registered.keys()].sort()
  }

  get count (): number {
    return this.#registered.size
  }

  /** Fetches the list again and applies the difference; serialised, never rejects. */
  refresh (): Promise<SyncReport | undefined> {
    const run = this.#chain.then(async () => {
      if (this.#disposed || this.#connection.state !== 'connected') return undefined
      try {
        return this.apply(await this.#connection.listTools())
      } catch (err) {
        this.#logger.warn({ err: (err as Error).message }, 'MCP tool list refresh failed')
        return undefined
      }
    })
    this.#chain = run
    return run
  }

  /** Makes the registry hold exactly `tools` (filtered, named, normalised) plus the utility tools. */
  apply (tools: readonly Tool[]): SyncReport {
    const report: SyncReport = { added: [], updated: [], removed: [], skipped: [] }
    if (this.#disposed) return report
    const desired = this.#desired(tools, report)
    const snapshot = this.#registry.snapshot()
    for (const name of [...this.#registered.keys()]) {
      if (desired.has(name)) continue
      this.#registered.delete(name)
      const entry = snapshot.tools.get(name)
      // Someone else may hold the name by now (a plugin allowed to override): never remove theirs.
      if (entry?.origin.kind === 'mcp' && entry.origin.server === this.server && this.#registry.deregister(name)) report.removed.push(name)
    }
    for (const tool of desired.values()) {
      const known = this.#registered.get(tool.name)
      if (known === tool.fingerprint) continue
      try {
        this.#registry.register({
          name: tool.name,
          toolset: this.toolset,
          schema: { description: tool.description, parameters: tool.parameters },
          handler: tool.handler,
          checkFn: this.#check,
          timeoutMs: this.#timeoutMs,
          origin: { kind: 'mcp', server: this.server }
        })
        this.#registered.set(tool.name, tool.fingerprint)
        if (known === undefined) report.added.push(tool.name)
        else report.updated.push(tool.name)
      } catch (err) {
        // A built-in, a plugin or another server has the name: that tool stays out, the others go on.
        const reason = (err as Error).message
        this.#logger.error({ tool: tool.name, raw: tool.raw, err: reason }, 'MCP tool not registered')
        report.skipped.push({ tool: tool.raw, reason })
      }
    }
    this.#ensureAlias()
    if (report.added.length + report.updated.length + report.removed.length > 0) {
      this.#logger.info({ added: report.added, updated: report.updated, removed: report.removed }, 'MCP tools synchronised')
    }
    return report
  }

  /** Stops listening and removes this server's tools from the registry. */
  dispose (): void {
    this.#disposed = true
    this.#clock.clearTimeout(this.#debounce)
    this.#connection.off('connected', this.#onConnected)
    this.#connection.off('tools_changed', this.#onToolsChanged)
    const snapshot = this.#registry.snapshot()
    for (const name of this.#registered.keys()) {
      const entry = snapshot.tools.get(name)
      if (entry?.origin.kind === 'mcp' && entry.origin.server === this.server) this.#registry.deregister(name)
    }
    this.#registered.clear()
  }

  #scheduleRefresh (): void {
    this.#clock.clearTimeout(this.#debounce)
    // A burst of list_changed notifications (a server adding ten tools) costs one tools/list.
    this.#debounce = this.#clock.setTimeout(() => { this.refresh() }, this.#debounceMs)
  }

  #keep (raw: string): boolean {
    const { include, exclude } = this.#filter
    if (include !== undefined) return include.includes(raw)
    return !(exclude ?? []).includes(raw)
  }

  #desired (tools: readonly Tool[], report: SyncReport): Map<string, Desired> {
    const desired = new Map<string, Desired>()
    const kept = tools.filter((tool) => typeof tool?.name === 'string' && tool.name !== '' && this.#keep(tool.name))
    const { names, collisions } = assignToolNames(this.server, kept.map((tool) => tool.name))
    for (const collision of collisions) {
      const reason = `${collision.raw.map((raw) => JSON.stringify(raw)).join(' and ')} all map to "${collision.name}"; none of them is registered`
      this.#logger.error({ name: collision.name, raw: collision.raw }, `MCP tool names collide: ${reason}`)
      for (const raw of collision.raw) report.skipped.push({ tool: raw, reason })
    }
    const seen = new Set<string>()
    for (const tool of kept) {
      const name = names.get(tool.name)
      if (name === undefined || seen.has(tool.name)) continue
      seen.add(tool.name)
      const normalized = normalizeInputSchema(tool.inputSchema)
      if (!normalized.ok) {
        this.#logger.warn({ tool: tool.name, reason: normalized.reason }, 'MCP tool skipped')
        report.skipped.push({ tool: tool.name, reason: normalized.reason })
        continue
      }
      if (normalized.notes.length > 0) this.#logger.debug({ tool: tool.name, notes: normalized.notes.slice(0, 20) }, 'MCP tool schema normalised')
      const raw = tool.name
      const description = describeTool(this.server, tool)
      desired.set(name, {
        name,
        raw,
        description,
        parameters: normalized.schema,
        handler: async (args, ctx) => (await this.#connection.callTool(raw, args, { signal: ctx.signal })).content,
        fingerprint: JSON.stringify([raw, description, normalized.schema])
      })
    }
    for (const utility of this.#utilities()) {
      if (desired.has(utility.name)) {
        this.#logger.warn({ tool: utility.name }, 'MCP utility tool skipped: the server has a tool of that name')
        continue
      }
      desired.set(utility.name, utility)
    }
    return desired
  }

  #utilities (): Desired[] {
    const capabilities = this.#connection.capabilities
    const connection = this.#connection
    const server = this.server
    const out: Desired[] = []
    const add = (tool: string, description: string, parameters: JsonSchema, handler: ToolHandler): void => {
      const name = mcpToolName(server, tool)
      out.push({ name, raw: `#${tool}`, description, parameters, handler, fingerprint: JSON.stringify([tool, description, parameters]) })
    }
    if (capabilities.resources) {
      add('list_resources', `List the resources (and resource templates) MCP server "${server}" offers.`, NO_ARGUMENTS, async (_args, ctx) => {
        const { resources } = await connection.listResources({ signal: ctx.signal })
        let templates: unknown[] | undefined
        try {
          templates = (await connection.listResourceTemplates({ signal: ctx.signal })).resourceTemplates
            .map((t) => optional({ uriTemplate: t.uriTemplate, name: t.name, title: t.title, description: t.description, mimeType: t.mimeType }))
        } catch {
          // Templates are optional in the protocol; a server without them answers with an error.
        }
        return toolResult({
          resources: resources.map((r) => optional({ uri: r.uri, name: r.name, title: r.title, description: r.description, mimeType: r.mimeType })),
          ...(templates && templates.length > 0 ? { resourceTemplates: templates } : {})
        })
      })
      add('read_resource', `Read one resource of MCP server "${server}" by its URI.`, {
        type: 'object',
        properties: { uri: { type: 'string', description: 'The resource URI, as list_resources gives it.' } },
        required: ['uri'],
        additionalProperties: false
      }, async (args, ctx) => {
        const { contents } = await connection.readResource(String(args.uri), { signal: ctx.signal })
        return contents.map(describeResourceContents).join('\n')
      })
    }
    if (capabilities.prompts) {
      add('list_prompts', `List the prompts MCP server "${server}" offers, with their arguments.`, NO_ARGUMENTS, async (_args, ctx) => {
        const { prompts } = await connection.listPrompts({ signal: ctx.signal })
        return toolResult({
          prompts: prompts.map((p) => optional({
            name: p.name,
            title: p.title,
            description: p.description,
            arguments: p.arguments?.map((a) => optional({ name: a.name, description: a.description, required: a.required }))
          }))
        })
      })
      add('get_prompt', `Get one prompt of MCP server "${server}", filled in with its arguments.`, {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The prompt name, as list_prompts gives it.' },
          arguments: { type: 'object', description: 'Prompt arguments by name.', additionalProperties: { type: ['string', 'number', 'boolean'] } }
        },
        required: ['name'],
        additionalProperties: false
      }, async (args, ctx) => {
        const given = typeof args.arguments === 'object' && args.arguments !== null ? args.arguments as Record<string, unknown> : {}
        // Prompt arguments are strings in the protocol; models send numbers and booleans too.
        const values = Object.fromEntries(Object.entries(given).map(([key, value]) => [key, String(value)]))
        const result = await connection.getPrompt(String(args.name), values, { signal: ctx.signal })
        return toolResult(optional({
          description: result.description,
          messages: result.messages.map((m) => ({ role: m.role, content: describeContentBlock(m.content) }))
        }))
      })
    }
    return out
  }

  #ensureAlias (): void {
    if (this.#registered.size === 0) return
    const snapshot = this.#registry.snapshot()
    if (snapshot.aliases.get(this.server) === this.toolset) return
    try {
      this.#registry.registerAlias(this.server, this.toolset)
      this.#aliasRefused = false
    } catch (err) {
      // The server's tools stay reachable as toolset "mcp-<server>"; only the short name is lost.
      if (!this.#aliasRefused) this.#logger.warn({ alias: this.server, toolset: this.toolset, err: (err as Error).message }, 'MCP toolset alias not registered')
      this.#aliasRefused = true
    }
  }
}
