// The dispatch pipeline as small composable steps, in the manner of undici interceptors: each step
// gets the call and `next`, and either answers itself (an invalid argument, a block) or wraps what
// the rest of the chain answers (hooks, truncation). Each step is testable on its own.
import type { Logger } from 'pino'
import type { CallerIdentity, InputRequests, InputResponses, ToolEntry, ToolProgress } from '../../registry/types.ts'
import type { TraceHeaders, TraceParent } from '../../tracing/tracer.ts'
import type { Approve } from './approval.ts'
import type { DispatchConfig } from './dispatch-config.ts'
import type { Dispatched, StepResult } from './outcome.ts'

export interface DispatchRequest {
  /** The tool name the caller asked for. */
  name: string
  /** An object, or the JSON string a model emits. */
  args: unknown
  callId?: string
  sessionId?: string
  /** The caller's API key name (or `user:<sub>`), handed to the handler as ctx.principal. */
  principal?: string
  /** The signed-in user, handed to the handler as ctx.identity. */
  identity?: CallerIdentity
  /** Aborts the call when the caller goes away or the gateway shuts down. */
  signal?: AbortSignal
  /** Per-call deadline override, capped by the dispatcher's maximum. */
  timeoutMs?: number
  /** Per-call result cap override, capped by the dispatcher's maximum. */
  maxResultChars?: number
  /** Tools outside this predicate answer as unknown (an API key limited to some toolsets). */
  visible?: (tool: string) => boolean
  /** Logger of the caller (an HTTP request's, carrying its request id); default the dispatcher's. */
  logger?: Logger
  /** Receives the handler's progress reports while the call runs (an MCP progress token). */
  onProgress?: (update: ToolProgress) => void
  /** The span this call's span hangs from (its HTTP request's, a caller's context); only when tracing. */
  trace?: TraceParent
  /**
   * How the caller answers the tool's questions (ctx.ask): resolves with the answers, rejects when
   * the caller cannot answer (GW_ERR_INPUT_UNSUPPORTED) or `signal` (the call's) fires. None: the
   * caller cannot be asked, and ctx.ask rejects naming what the tool asked.
   */
  ask?: (requests: InputRequests, signal: AbortSignal) => Promise<InputResponses>
  /**
   * How a call of a tool that needs a person's approval (trust.approval) gets it: holds the call
   * until it is decided, or refuses it naming the approval. None: such calls are refused.
   */
  approve?: Approve
  /**
   * How the handler's inner calls (ctx.callTool) run: the entry runs them as it runs the calls it
   * receives (counted, audited as `inner`). None: the handler has no ctx.callTool (an inner call
   * itself: calls do not nest).
   */
  runInner?: (request: DispatchRequest) => Promise<Dispatched>
  /** An inner call: the call that made it, and the time its deadline leaves (the inner one ends no later). */
  outer?: { readonly tool: string, readonly callId: string, readonly withinMs: number }
}

/** Mutable state of one call as it moves through the steps. */
export interface CallState {
  readonly request: DispatchRequest
  readonly callId: string
  readonly startedAt: number
  /** The configuration as it stood when the call started; a reload meanwhile does not change it. */
  readonly config: DispatchConfig
  /** Binds callId, and the tool once the lookup found it. */
  readonly logger: Logger
  /** Set by the lookup step; every later step can rely on it. */
  entry?: ToolEntry
  /** The parsed (then coerced) arguments. */
  args: Record<string, unknown>
  /** The W3C context of the call's span, handed to the handler (ctx.traceHeaders); unset when not traced. */
  traceHeaders?: TraceHeaders
}

/**
 * A class rather than an object literal: V8 builds a literal with a getter per call slowly (each
 * cost microseconds under load), and the getter keeps the call's logger lazy (see below).
 */
class Call implements CallState {
  entry: ToolEntry | undefined = undefined
  args: Record<string, unknown> = {}
  traceHeaders: TraceHeaders | undefined = undefined
  readonly request: DispatchRequest
  readonly callId: string
  readonly startedAt: number
  readonly config: DispatchConfig
  readonly #base: Logger
  #logger: Logger | undefined = undefined
  #loggerTool: string | undefined = undefined

  constructor (request: DispatchRequest, callId: string, startedAt: number, config: DispatchConfig, base: Logger) {
    this.request = request
    this.callId = callId
    this.startedAt = startedAt
    this.config = config
    this.#base = base
  }

  /**
   * Built on first use (again if the lookup found the tool since): a pino child logger per call
   * doubled the CPU of a dispatch through the pipeline (bench/README.md), and at the usual levels most calls never log.
   */
  get logger (): Logger {
    const tool = this.entry?.name
    if (this.#logger === undefined || this.#loggerTool !== tool) {
      const principal = this.request.principal
      // Who called, in every line about the call (an API key's name, or user:<sub>): the audit of it.
      this.#logger = this.#base.child({ callId: this.callId, ...(tool === undefined ? {} : { tool }), ...(principal === undefined ? {} : { principal }) })
      this.#loggerTool = tool
    }
    return this.#logger
  }
}

export function createCallState (request: DispatchRequest, callId: string, startedAt: number, config: DispatchConfig, base: Logger): CallState {
  return new Call(request, callId, startedAt, config, base)
}

/** A step answers itself (an invalid argument, a block) or awaits `next(call)`, the rest of the chain, and wraps its answer. */
export type Step = (call: CallState, next: (call: CallState) => Promise<StepResult>) => Promise<StepResult>

/** Chains steps so the first wraps the second and so on; the last one's `next` is never called. */
export function compose (steps: readonly Step[]): (call: CallState) => Promise<StepResult> {
  const end = async (): Promise<StepResult> => { throw new Error('dispatch pipeline ended without an answer') }
  return steps.reduceRight<(call: CallState) => Promise<StepResult>>((next, step) => (call) => step(call, next), end)
}

/** The entry, which the lookup step has set before any step that needs it runs. */
export function entryOf (call: CallState): ToolEntry {
  if (call.entry === undefined) throw new Error('dispatch step ran before the lookup step')
  return call.entry
}
