// What GET /tools and GET /tools/:name tell an operator: which tools work and which do not, with
// reasons, where each comes from and its effective limits. The schemas describe the answers (the
// routes serve them as they are); the functions build them for one caller's scope.
import { Type, type Static } from 'typebox'
import type { KeyScope } from '../access/key-scope.ts'
import { definitionTokens } from '../definitions/token-count.ts'
import type { Gateway } from '../core/gateway.ts'
import type { ToolEntry, ToolOrigin } from '../registry/types.ts'
import { leftOutOf } from '../definitions/formats/formats.ts'
import { ToolTrustReport } from './tool-trust.ts'

const Origin = Type.Object({
  kind: Type.Enum(['builtin', 'plugin', 'mcp'], { description: 'Where the tool comes from.' }),
  plugin: Type.Optional(Type.String({ description: 'The plugin that registered it.' })),
  server: Type.Optional(Type.String({ description: 'The MCP server that provides it.' }))
}, { description: 'Provenance of the tool.' })

const Annotations = Type.Object({
  readOnly: Type.Optional(Type.Boolean({ description: 'It changes nothing in its environment. Default when absent: false.' })),
  destructive: Type.Optional(Type.Boolean({ description: 'It may delete or overwrite (meaningful when not read-only). Default when absent: true.' })),
  idempotent: Type.Optional(Type.Boolean({ description: 'A repeat with the same arguments has no further effect (meaningful when not read-only). Default when absent: false.' })),
  openWorld: Type.Optional(Type.Boolean({ description: 'It reaches outside entities (the web, other hosts) rather than a closed domain. Default when absent: true.' })),
  title: Type.Optional(Type.String({ description: 'A human-readable name.' }))
}, { description: 'The hints the tool declared about its behaviour (its MCP server\'s, for an MCP tool), as MCP clients get them (readOnlyHint, ...); an absent hint takes the MCP default. Hints, not enforced.' })

const LeftOutOf = Type.Array(Type.Object({
  format: Type.Enum(['strict', 'gemini'], { description: '`strict`: GET /definitions?strict=true (chat and responses); `gemini`: ?format=gemini.' }),
  reason: Type.String({ description: 'What in its parameters the format cannot express, and where (a JSON pointer).' })
}, { description: 'A variant of GET /definitions that leaves this tool out.' }), { description: 'The /definitions variants that leave the tool out (its schema cannot be expressed faithfully in them), with the reason; empty when every format serves it. Judged on the registered schema, before any dynamic override.' })

const ToolStatus = Type.Object({
  name: Type.String({ description: 'The tool name.' }),
  toolset: Type.String({ description: 'The toolset tag it registered with.' }),
  available: Type.Boolean({ description: 'Whether its availability check passes now.' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it is unavailable (or a note on a transient failure); null when none.' }),
  requiresEnv: Type.Array(Type.String(), { description: 'Environment variables it needs (information only).' }),
  emoji: Type.String({ description: 'Display emoji.' }),
  description: Type.String({ description: 'What the tool does.' }),
  origin: Origin,
  annotations: Annotations,
  leftOutOf: LeftOutOf,
  trust: Type.Optional(ToolTrustReport),
  definitionTokens: Type.Union([Type.Integer(), Type.Null()], {
    description: 'What its definition costs a model\'s context: o200k_base tokens of the JSON of its entry in GET /definitions (chat format, as served, dynamic overrides applied); null while it is unavailable, and so not served.'
  })
}, { description: 'One tool as an operator sees it.' })

export const McpServerState = Type.Object({
  server: Type.String({ description: 'The MCP server name from config.' }),
  toolset: Type.String({ description: 'The toolset its tools carry (mcp-<server>).' }),
  state: Type.Enum(['connecting', 'connected', 'reconnecting', 'circuit_open', 'disabled', 'closed'], { description: 'Connection state.' }),
  transport: Type.Enum(['stdio', 'http'], { description: 'How the gateway reaches it.' }),
  tools: Type.Integer({ description: 'Tools it currently provides.' }),
  toolsLeftOut: Type.Array(Type.Object({
    tool: Type.String({ description: 'The MCP name of the tool, or #<position> in its tools/list when it has none.' }),
    reason: Type.String({ description: 'Why it is not served.' })
  }, { description: 'A tool the server lists that the gateway does not serve.' }), { description: 'Tools it lists that are not served, with the reason (e.g. an input schema that cannot be repaired).' }),
  schemaWarnings: Type.Array(Type.Object({
    tool: Type.String({ description: 'The MCP name of the tool.' }),
    warning: Type.String({ description: 'The check left out, where, and why.' })
  }, { description: 'A check of a served tool\'s schema that the gateway does not run.' }), { description: 'Checks left out of its tools\' schemas (a pattern the linear-time engine cannot run); the server still checks them.' }),
  lastError: Type.Union([Type.String(), Type.Null()], { description: 'The last failure, if any.' }),
  since: Type.String({ description: 'When it entered this state (ISO 8601).' }),
  protocolVersion: Type.Union([Type.String(), Type.Null()], {
    description: 'The MCP revision the gateway speaks with it (2026-07-28, 2025-11-25, ...), negotiated or as pinned by mcpServers.<name>.protocol; null while it is not connected.'
  }),
  protocolEra: Type.Union([Type.Enum(['modern', 'legacy']), Type.Null()], {
    description: 'The era of that revision: modern (2026-07-28 and later: server/discover, no session, changes told on subscriptions/listen) or legacy (2025 revisions: initialize, sessions over HTTP, list_changed notifications); null while it is not connected.'
  })
}, { description: 'One MCP server as an operator sees it.' })

export const ToolList = Type.Object({
  generation: Type.Integer({ description: 'Registry generation: moves on every tool change.' }),
  summary: Type.Object({
    total: Type.Integer({ description: 'Tools listed.' }),
    available: Type.Integer({ description: 'Of which available.' }),
    unavailable: Type.Integer({ description: 'Of which unavailable.' })
  }, { description: 'Counts.' }),
  tools: Type.Array(ToolStatus, { description: 'Tools sorted by name.' }),
  mcpServers: Type.Array(McpServerState, { description: 'Configured MCP servers and their state, sorted by name.' })
}, { description: 'Availability of every tool.' })

export const ToolDetail = Type.Object({
  name: Type.String({ description: 'The tool name.' }),
  toolset: Type.String({ description: 'The toolset tag it registered with.' }),
  description: Type.String({ description: 'What the tool does.' }),
  emoji: Type.String({ description: 'Display emoji.' }),
  parameters: Type.Record(Type.String(), Type.Unknown(), { description: 'JSON Schema of the arguments.' }),
  requiresEnv: Type.Array(Type.String(), { description: 'Environment variables it needs (information only).' }),
  limits: Type.Object({
    timeoutMs: Type.Integer({ description: 'Deadline of one call, after config overrides.' }),
    maxResultSizeChars: Type.Union([Type.Integer(), Type.Null()], { description: 'Result cap after config overrides; null = unlimited.' })
  }, { description: 'Effective limits.' }),
  available: Type.Boolean({ description: 'Whether its availability check passes now.' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it is unavailable; null when none.' }),
  origin: Origin,
  annotations: Annotations,
  trust: Type.Optional(ToolTrustReport)
}, { description: 'One tool in full.' })

function originOf (origin: ToolOrigin): Static<typeof Origin> {
  if (origin.kind === 'plugin') return { kind: origin.kind, plugin: origin.plugin }
  if (origin.kind === 'mcp') return { kind: origin.kind, server: origin.server }
  return { kind: origin.kind }
}

/** Every tool the caller may use (only those tagged `toolset` when given), with its verdict. */
export async function toolsReport (gateway: Gateway, scope: KeyScope, toolset?: string): Promise<Static<typeof ToolList>> {
  const snapshot = gateway.registry.snapshot()
  const entries = [...snapshot.tools.values()]
    .filter((entry) => scope.mayUse(entry.name) && (toolset === undefined || entry.toolset === toolset))
    .sort((a, b) => (a.name < b.name ? -1 : 1))
  const verdicts = await gateway.availability.tools(entries)
  // The definitions as /definitions serves them (the builder's cache keeps them, so counts are kept too).
  const served = new Map((await gateway.definitions.build(entries.map((entry) => entry.name))).tools.map((tool) => [tool.function.name, tool]))
  const tools = entries.map((entry) => {
    const verdict = verdicts.get(entry.name)!
    const definition = served.get(entry.name)
    const trust = gateway.trust.status(entry.name)
    return {
      name: entry.name,
      toolset: entry.toolset,
      available: verdict.available,
      reason: verdict.reason ?? null,
      requiresEnv: [...entry.requiresEnv],
      emoji: entry.emoji,
      description: entry.description,
      origin: originOf(entry.origin),
      annotations: { ...entry.annotations },
      leftOutOf: [...leftOutOf(entry.name, entry.schema.parameters)],
      ...(trust === undefined ? {} : { trust }),
      definitionTokens: definition === undefined ? null : definitionTokens(definition)
    }
  })
  const available = tools.filter((t) => t.available).length
  return {
    generation: snapshot.generation,
    summary: { total: tools.length, available, unavailable: tools.length - available },
    tools,
    // A key limited to toolsets sees only the servers behind them.
    mcpServers: gateway.mcp.states().filter((status) => !scope.restricted || tools.some((t) => t.toolset === status.toolset))
  }
}

/** One tool in full, or undefined when it does not exist for this caller. */
export async function toolDetail (gateway: Gateway, scope: KeyScope, name: string): Promise<Static<typeof ToolDetail> | undefined> {
  const entry: ToolEntry | undefined = gateway.registry.snapshot().tools.get(name)
  if (entry === undefined || !scope.mayUse(name)) return undefined
  const verdict = await gateway.availability.tool(entry)
  const override = gateway.config.tools[name]
  const maxChars = override?.maxResultSizeChars ?? entry.maxResultSizeChars
  const trust = gateway.trust.status(name)
  return {
    name: entry.name,
    toolset: entry.toolset,
    description: entry.description,
    emoji: entry.emoji,
    parameters: entry.schema.parameters,
    requiresEnv: [...entry.requiresEnv],
    limits: {
      timeoutMs: override?.timeoutMs ?? entry.timeoutMs ?? gateway.config.dispatch.defaultTimeoutMs,
      maxResultSizeChars: Number.isFinite(maxChars) ? maxChars : null
    },
    available: verdict.available,
    reason: verdict.reason ?? null,
    origin: originOf(entry.origin),
    annotations: { ...entry.annotations },
    ...(trust === undefined ? {} : { trust })
  }
}
