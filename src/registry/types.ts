// The shapes of the tool registry: what a tool module registers and what the registry keeps.
import type { Logger } from 'pino'
import type { Static } from 'typebox'
import type { JsonSchema } from '../json-schema/document.ts'
import type { DeclaredTool, InnerCallResult, SchemaView } from './views.ts'

export type { JsonSchema, DeclaredTool, InnerCallResult, SchemaView }

/** Where a tool came from; decides the collision policy and is shown to operators. */
export type ToolOrigin =
  | { kind: 'builtin' }
  | { kind: 'plugin', plugin: string, allowToolOverride: boolean }
  | { kind: 'mcp', server: string }

/** What every handler receives beside its arguments. */
/**
 * The W3C trace context of a span (`traceparent`, and `tracestate` when there is one), as headers
 * for the requests a call makes on (MCP upstreams, web pages); lower-case names.
 */
export type TraceHeaders = Readonly<Record<string, string>>

/**
 * The signed-in user behind a call (an access token of the identity provider), able to obtain a
 * token of its own for a service the gateway calls on its behalf (RFC 8693 token exchange). The
 * user's own token never leaves the gateway and is not readable here.
 */
export interface CallerIdentity {
  /** The principal (`user:<sub>`). */
  readonly principal: string
  /** An access token for the user addressed to `audience` (and `scope`), from the provider; rejects naming why not. */
  exchange: (audience: string, scope?: string) => Promise<string>
}

export interface ToolContext {
  /** Fires on timeout, when the caller goes away and on shutdown; handlers must stop work then. */
  signal: AbortSignal
  logger: Logger
  callId: string
  sessionId?: string
  /**
   * Who is calling: the API key's name from config, `user:<sub>` for a signed-in user, or undefined
   * when the gateway has no keys (or the call did not come over HTTP). Tools that keep state across calls use it to keep one key's
   * state from another (the terminal's background processes).
   */
  principal?: string
  /** The signed-in user calling, when the call came with an access token (not an API key). */
  readonly identity?: CallerIdentity
  /** The validated gateway configuration (opaque to the registry); tools read it with configOf(ctx). */
  config: unknown
  /**
   * Tells the caller how far a long call has got (an MCP client that sent a progress token gets
   * `notifications/progress`); does nothing when nobody listens or once the call has ended.
   * Optional so that contexts built by hand (tests, plugins) need not provide it.
   */
  reportProgress?: (update: ToolProgress) => void
  /**
   * Whether anyone listens to reportProgress: a tool that relays another server's progress (an
   * MCP upstream's) asks that server for it only then.
   */
  readonly progressWanted?: boolean
  /**
   * Whether the caller may see a tool (its API key's toolsets, an /mcp `?toolsets=` selection);
   * undefined = every tool. For tools that answer about other tools (search_tools), so that they
   * never name one outside the caller's scope.
   */
  readonly visible?: (tool: string) => boolean
  /**
   * Reads part of a result the gateway kept for this same caller after cutting it to its size cap
   * (what read_result serves); undefined when no such result exists for the caller (unknown,
   * expired, another key's). Rejects when `offset` is past its end. Absent in contexts built by hand.
   */
  readResult?: (id: string, offset: number, limit: number) => Promise<ResultPage | undefined>
  /**
   * The W3C trace context of this call's span (`traceparent`, `tracestate`), for the requests it
   * makes on (an MCP upstream, web pages) to carry as headers; undefined when tracing is off.
   */
  readonly traceHeaders?: TraceHeaders
  /**
   * Asks the caller (its user, or its model) and resolves with the answers, keyed as asked: an
   * elicitation's `{ action, content? }`, a sampling's message, a roots list. The call's deadline
   * stops while the question waits (a question has its own limit, calls.answerTimeoutMs). Rejects
   * with GW_ERR_INPUT_UNSUPPORTED, naming what was asked, when the caller cannot answer that kind of
   * question; with the call's signal's reason when the call ends first. Absent in contexts built by hand.
   */
  ask?: (requests: InputRequests) => Promise<InputResponses>
  /**
   * Calls another tool as this call's caller, with every guarantee of a call of its own: the
   * caller's scope (a tool outside it is not found), coercion, validation, hooks, approvals (a call
   * that needs one is refused: nobody waits inside a call), a deadline within this call's, its
   * span, metrics and audit line. Resolves with the inner call's status and content; never rejects.
   * `signal` stops it sooner than this call's own end. Absent inside an inner call (no nesting)
   * and in contexts built by hand.
   */
  callTool?: (name: string, args: unknown, signal?: AbortSignal) => Promise<InnerCallResult>
}

/**
 * What a tool may ask its caller, as MCP 2026-07-28 embeds server-to-client requests (an
 * `InputRequests` map): `elicitation/create` (a form or a URL for the user), `sampling/createMessage`
 * (a completion from the caller's model), `roots/list`. Keys are the tool's own and unique within the call.
 */
export type InputRequestMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list'
export interface InputRequest {
  method: InputRequestMethod
  params?: Record<string, unknown>
}
export type InputRequests = Record<string, InputRequest>
/** The caller's answers, keyed as the questions were: each the result its request defines (`ElicitResult`, ...). */
export type InputResponses = Record<string, Record<string, unknown>>

/** The tool that reads kept results (tools/results/read-result.ts), which truncation notices name. */
export const READ_RESULT_TOOL = 'read_result'

/** The tool that finds tools for a task (src/search/search-tool.ts), which deferred definitions keep loaded. */
export const SEARCH_TOOL_NAME = 'search_tools'

/** One read of a kept result. Offsets and lengths count UTF-16 code units, as `originalLength` does. */
export interface ResultPage {
  id: string
  offset: number
  content: string
  /** The length of the whole result. */
  totalLength: number
  /** Where the next read starts; null once the end is reached. */
  nextOffset: number | null
}

/** One progress report: `progress` should grow from one report to the next; `total` when known. */
export interface ToolProgress {
  progress: number
  total?: number
  message?: string
}

/** An image or a sound a tool returns beside its text (see mediaResult in tool-result.ts). */
export interface ToolMedia {
  kind: 'image' | 'audio'
  /** e.g. image/png, audio/wav; the gateway accepts only the types in src/dispatch/call/media.ts. */
  mimeType: string
  /** The bytes, base64-encoded. */
  data: string
}

/** A result with media: the text for the model, and the images and sounds it goes with. */
export interface MediaResult {
  text: string
  media: ToolMedia[]
}

/**
 * A handler answers a string (the usual case) or, to carry images and audio, a MediaResult. `Args`
 * is what its parameters declare (see ArgumentsOf); the registry keeps every handler untyped.
 */
export type ToolHandler<Args extends object = Record<string, unknown>> = (args: Args, ctx: ToolContext) => Promise<string | MediaResult> | string | MediaResult

/**
 * The arguments a handler receives for the parameters schema `P`, read from the schema itself:
 * a literal JSON Schema (written inline in `register`, or `as const`) or a TypeBox type, through
 * TypeBox's Static, which reads both. A schema typed only as JsonSchema (built at run time) gives
 * `Record<string, unknown>`. Honest because the dispatcher validates (and coerces) the arguments
 * against the schema before any handler runs; defaults are not filled in, so a property with a
 * `default` that is not `required` stays optional.
 */
export type ArgumentsOf<P extends object> = string extends keyof P ? Record<string, unknown> : Static<P>

export interface CheckVerdict {
  available: boolean
  reason?: string
}

/** What a probe may read: the gateway configuration of the app asking (several apps may share a process). */
export interface CheckContext {
  config: unknown
}

/** Availability probe: a boolean or a verdict with a reason, sync or async. A throw counts as unavailable. */
export type CheckFn = (ctx: CheckContext) => boolean | CheckVerdict | Promise<boolean | CheckVerdict>

/** `P`: the parameters as declared (a literal schema or a TypeBox type); the registry stores them as JsonSchema. */
export interface ToolSchema<P extends object = JsonSchema> {
  description?: string
  /** A JSON Schema with `type: "object"`. */
  parameters: P
}

/**
 * What a tool says about its own behaviour, for clients deciding whether to ask a human first or
 * to retry: hints, never enforced by the gateway (a tool that lies is not stopped). MCP clients get
 * them as the tool's `annotations` (`readOnlyHint`, ...; see annotations.ts). An undeclared hint
 * takes the MCP default, the cautious assumption: readOnly false, destructive true, idempotent
 * false, openWorld true. `destructive` and `idempotent` mean something only when readOnly is false.
 */
export interface ToolAnnotations {
  /** It changes nothing in its environment (reads, searches, fetches). */
  readOnly?: boolean
  /** It may delete or overwrite what was there (as opposed to only adding). */
  destructive?: boolean
  /** Calling it again with the same arguments has no further effect. */
  idempotent?: boolean
  /** It reaches an open world of outside entities (the web, any host); false: a closed domain such as the workspace. */
  openWorld?: boolean
  /** A human-readable name for client interfaces. */
  title?: string
}

/**
 * Options a tool module passes to `registry.register(...)`. `P` is the type of
 * `schema.parameters`, which types the handler's arguments (ArgumentsOf); the default, JsonSchema,
 * leaves them `Record<string, unknown>`.
 */
export interface RegisterOptions<P extends object = JsonSchema> {
  name: string
  toolset: string
  schema: ToolSchema<P>
  // NoInfer: P comes from the schema alone. Inferring it back through the handler's arguments
  // would walk every branch of TypeBox's Static and cost the type checker seconds.
  handler: ToolHandler<NoInfer<ArgumentsOf<P>>>
  checkFn?: CheckFn
  requiresEnv?: string[]
  description?: string
  emoji?: string
  /** Cap on the result string; default 100 000; `Infinity` allowed. */
  maxResultSizeChars?: number
  /** Per-tool deadline; the dispatcher's default applies when absent. */
  timeoutMs?: number
  /**
   * Shallow-merged onto the schema at every definitions pass, given the other tools of that answer;
   * a throw falls back to the static schema.
   */
  dynamicSchemaOverrides?: (view: SchemaView) => Partial<ToolSchema> & Record<string, unknown>
  /**
   * Called once when the gateway starts, once every tool is loaded, with its configuration: tidy
   * what a call killed in an earlier run left (temp files). It runs beside the first requests, not
   * before them; a throw is logged.
   */
  prepare?: (ctx: CheckContext) => Promise<void> | void
  /** Called once when the gateway shuts down: release what the tool holds (child processes, sockets). */
  dispose?: () => Promise<void> | void
  /** Hints about its behaviour for clients (shown in /tools, sent to MCP clients); none declared means the MCP defaults. */
  annotations?: ToolAnnotations
  /** Replace a tool of another toolset (refused without it). */
  override?: boolean
  origin?: ToolOrigin
}

/** A registered tool, immutable once stored. */
export interface ToolEntry {
  readonly name: string
  readonly toolset: string
  readonly schema: Readonly<ToolSchema>
  readonly handler: ToolHandler
  readonly checkFn?: CheckFn
  readonly requiresEnv: readonly string[]
  readonly description: string
  readonly emoji: string
  readonly maxResultSizeChars: number
  readonly timeoutMs?: number
  readonly dynamicSchemaOverrides?: (view: SchemaView) => Partial<ToolSchema> & Record<string, unknown>
  readonly prepare?: (ctx: CheckContext) => Promise<void> | void
  readonly dispose?: () => Promise<void> | void
  /** The declared hints only (frozen; empty when none). */
  readonly annotations: Readonly<ToolAnnotations>
  readonly origin: ToolOrigin
}

/** One immutable view of the registry; a reader keeps using it across awaits while writers move on. */
export interface RegistrySnapshot {
  readonly generation: number
  readonly tools: ReadonlyMap<string, ToolEntry>
  /** The first check registered for each toolset: the probe that answers for the whole toolset. */
  readonly toolsetChecks: ReadonlyMap<string, CheckFn>
  /** alias → toolset (an MCP server `foo` is reachable as `foo` for `mcp-foo`). */
  readonly aliases: ReadonlyMap<string, string>
}

export type RegistryChange =
  | { type: 'register', name: string, toolset: string, replaced: boolean, generation: number }
  | { type: 'deregister', name: string, toolset: string, generation: number }
  | { type: 'alias', alias: string, toolset: string, generation: number }
  | { type: 'batch', registered: readonly string[], deregistered: readonly string[], generation: number }
  | { type: 'reconfigured', generation: number }

export const DEFAULT_EMOJI = '⚡'
export const DEFAULT_MAX_RESULT_SIZE_CHARS = 100_000
