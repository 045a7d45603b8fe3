// Runs one tool call through the steps of src/dispatch/steps, listed below in the order a call meets
// them. A step either answers the call itself (an unknown tool, invalid arguments, a block) or hands
// it to the next and works on the answer as it comes back (↩: hooks, truncation), like undici's
// interceptors. `dispatch` never throws: an unexpected fault becomes an error outcome with a
// generic message, and the details go to the log.
import { performance } from 'node:perf_hooks'
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { AvailabilityChecker } from '../availability/checker.ts'
import type { ToolRegistry } from '../registry/registry.ts'
import { READ_RESULT_TOOL } from '../registry/types.ts'
import type { ResultStore } from '../results/result-store.ts'
import type { Tracer } from '../tracing/tracer.ts'
import { DEFAULT_DISPATCH_CONFIG, type DispatchConfig, type DispatchLimits } from './call/dispatch-config.ts'
import { ErrorContentCleaner } from './call/error-content.ts'
import { HookRegistry } from './call/hooks.ts'
import { dispatched, failed, type Dispatched, type StepResult } from './call/outcome.ts'
import { compose, createCallState, entryOf, type CallState, type DispatchRequest } from './call/pipeline.ts'
import { RunningCalls } from './call/running-calls.ts'
import { approvalStep } from './steps/approval-gate.ts'
import { coerceStep } from './steps/coerce-arguments.ts'
import { postHookStep, preHookStep, refusedCallHookStep, transformStep } from './steps/hook-steps.ts'
import { invokeStep } from './steps/invoke-handler.ts'
import { lookupStep } from './steps/lookup.ts'
import { parseStep } from './steps/parse-arguments.ts'
import { truncateStep } from './steps/truncate-result.ts'
import { validateStep } from './steps/validate-arguments.ts'

export interface DispatcherOptions {
  registry: ToolRegistry
  availability: AvailabilityChecker
  logger: Logger
  hooks?: HookRegistry
  /**
   * The gateway's configuration as it stands, read when each call starts: its limits (`dispatch`)
   * and per-tool overrides (`tools`), and the whole handed to the handler as ctx.config. A reload
   * swaps what it returns; default: the default limits, no overrides.
   */
  config?: () => DispatchConfig
  /** Keeps the full text of cut results for their callers; none: what is cut is lost. */
  results?: ResultStore
  /** Cleans failed calls' content before the model reads it; default: credential shapes and framing only. */
  errorContent?: ErrorContentCleaner
  /** Gives each call a span; none (the usual case) costs one check per call. */
  tracer?: Tracer
  now?: () => number
}

function positive (value: number | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0
}

/**
 * A call's deadline: the caller's override within the ceiling, else the operator's, the tool's, the
 * default; an inner call's never past what its outer call has left.
 */
function timeoutOf (call: CallState): number {
  const { dispatch, tools } = call.config
  const { request } = call
  const own = positive(request.timeoutMs)
    ? Math.min(request.timeoutMs, dispatch.maxTimeoutMs)
    : tools[entryOf(call).name]?.timeoutMs ?? entryOf(call).timeoutMs ?? dispatch.defaultTimeoutMs
  return request.outer === undefined ? own : Math.max(1, Math.min(own, request.outer.withinMs))
}

/** A call's result cap: the caller's override within the ceiling, else the operator's, the tool's. */
function maxCharsOf (call: CallState): number {
  const { dispatch, tools } = call.config
  const requested = call.request.maxResultChars
  if (typeof requested === 'number' && requested >= 0) return Math.min(requested, dispatch.maxResultChars)
  const entry = entryOf(call)
  return tools[entry.name]?.maxResultSizeChars ?? entry.maxResultSizeChars
}

export class Dispatcher {
  readonly hooks: HookRegistry
  /** The calls running on each tool entry (a reload releases what it replaced once they end). */
  readonly running = new RunningCalls()
  readonly #config: () => DispatchConfig
  readonly #tracer: Tracer | undefined
  readonly #logger: Logger
  readonly #now: () => number
  readonly #errorContent: ErrorContentCleaner
  readonly #run: (call: CallState) => Promise<StepResult>

  constructor (options: DispatcherOptions) {
    const { registry, availability, results, tracer } = options
    this.hooks = options.hooks ?? new HookRegistry()
    this.#config = options.config ?? (() => DEFAULT_DISPATCH_CONFIG)
    this.#tracer = options.tracer
    this.#logger = options.logger
    this.#now = options.now ?? (() => performance.now())
    this.#errorContent = options.errorContent ?? new ErrorContentCleaner()
    const hooks = this.hooks
    const now = this.#now

    this.#run = compose([
      // ↩ post_tool_call for a call that reached no tool (unknown, unavailable), for the audit.
      refusedCallHookStep(hooks, now),
      // The tool, in one registry snapshot, and its availability; else not_found or unavailable.
      lookupStep(() => registry.snapshot(), availability),
      // ↩ The result cut to its cap, its full text kept for the caller (read_result, /results).
      truncateStep(maxCharsOf, results && {
        store: results,
        toolCallable: (call) => registry.snapshot().tools.has(READ_RESULT_TOOL) && (call.request.visible?.(READ_RESULT_TOOL) ?? true)
      }),
      // ↩ transform_tool_result hooks may replace the result's text.
      transformStep(hooks, now),
      // ↩ post_tool_call hooks observe every call that reached the tool.
      postHookStep(hooks, now),
      // The arguments: a JSON string parsed, values coerced to the schema, then validated.
      parseStep,
      coerceStep,
      validateStep,
      // pre_tool_call hooks may block the call.
      preHookStep(hooks),
      // A call of a tool in trust.approval waits for a person's approval of these exact arguments.
      approvalStep,
      // The handler, under its deadline and the caller's signal.
      invokeStep({ timeoutOf, results, running: this.running, traceOf: tracer === undefined ? undefined : (headers) => tracer.parentFrom(headers) })
    ])
  }

  /** The limits as they stand (the running configuration's). */
  get limits (): Readonly<DispatchLimits> {
    return this.#config().dispatch
  }

  /** Runs one tool call through the whole pipeline. Never rejects. */
  async dispatch (request: DispatchRequest): Promise<Dispatched> {
    const startedAt = this.#now()
    const callId = request.callId || `call_${randomUUID()}`
    const span = this.#tracer?.startDispatch(request.name, callId, request.trace, request.principal)
    const call = createCallState(request, callId, startedAt, this.#config(), request.logger ?? this.#logger)
    if (span !== undefined) call.traceHeaders = span.headers
    let result: StepResult
    try {
      result = await this.#run(call)
    } catch (err) {
      result = this.#fault(call, err)
    }
    const answer = this.#finish(call, result)
    span?.end(answer.outcome)
    return answer
  }

  #fault (call: CallState, err: unknown): StepResult {
    call.logger.error({ err, tool: call.request.name }, 'unexpected fault in the dispatch pipeline')
    return failed('error', 'internal error while running the tool; the gateway log has the details')
  }

  #finish (call: CallState, result: StepResult): Dispatched {
    const { request, callId } = call
    const base = request.logger ?? this.#logger
    const durationMs = Math.max(0, Math.round(this.#now() - call.startedAt))
    // A failure's text may quote credentials or chat framing (an upstream error, a thrown message).
    const answer = dispatched(request.name, callId, this.#errorContent.result(result, call.args), durationMs)
    const { outcome } = answer
    // One line per call. Arguments are untrusted data: only at debug, under one key, where the
    // logger's redaction of secret argument names applies. The line is written on the caller's
    // logger: call.logger binds `tool` only once the lookup found one, and this line names even an unknown one.
    base.info({ callId, tool: request.name, status: outcome.status, durationMs, truncated: outcome.truncated }, 'tool call')
    // Checked first, so that a call that logs nothing builds no call logger.
    if (base.isLevelEnabled('debug')) call.logger.debug({ args: call.args }, 'tool call arguments')
    return answer
  }
}
