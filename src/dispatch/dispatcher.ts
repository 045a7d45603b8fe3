// Assembles the dispatch pipeline: lookup → parse → coerce → validate → pre hooks → handler, wrapped
// by post hooks, transform hooks and truncation. `dispatch` never throws: an unexpected fault becomes
// an error outcome with a generic message, and the details go to the log.
import { performance } from 'node:perf_hooks'
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { AvailabilityChecker } from '../availability/checker.ts'
import type { ToolRegistry } from '../registry/registry.ts'
import { READ_RESULT_TOOL } from '../registry/types.ts'
import type { ResultStore } from '../results/result-store.ts'
import type { Tracer } from '../tracing/tracer.ts'
import { ErrorContentCleaner } from './call/error-content.ts'
import { HookRegistry } from './call/hooks.ts'
import { DEFAULT_MAX_MEDIA_BYTES } from './call/media.ts'
import { buildOutcome, failed, type DispatchOutcome, type StepResult } from './call/outcome.ts'
import { compose, createCallState, entryOf, type CallState, type DispatchRequest } from './call/pipeline.ts'
import { coerceStep } from './steps/coerce-arguments.ts'
import { postHookStep, preHookStep, refusedCallHookStep, transformStep } from './steps/hook-steps.ts'
import { invokeStep } from './steps/invoke-handler.ts'
import { RunningCalls } from './call/running-calls.ts'
import { lookupStep } from './steps/lookup.ts'
import { parseStep } from './steps/parse-arguments.ts'
import { truncateStep } from './steps/truncate-result.ts'
import { validateStep } from './steps/validate-arguments.ts'

export interface DispatchLimits {
  /** Deadline of a tool that sets none. */
  defaultTimeoutMs: number
  /** Ceiling for a per-call timeout override. */
  maxTimeoutMs: number
  /** Ceiling for a per-call result-size override. */
  maxResultChars: number
  /** Bytes of images and audio one call may return; past it, items are dropped with a note. */
  maxMediaBytes: number
}

export const DEFAULT_DISPATCH_LIMITS: DispatchLimits = Object.freeze({
  defaultTimeoutMs: 60_000,
  maxTimeoutMs: 600_000,
  maxResultChars: 1_000_000,
  maxMediaBytes: DEFAULT_MAX_MEDIA_BYTES
})

export interface DispatcherOptions {
  registry: ToolRegistry
  availability: AvailabilityChecker
  logger: Logger
  hooks?: HookRegistry
  limits?: Partial<DispatchLimits>
  /** Per-tool operator overrides from config, applied over what the tool declared. */
  toolOverrides?: Readonly<Record<string, { timeoutMs?: number, maxResultSizeChars?: number }>>
  /** Handed to every handler as ctx.config. */
  config?: unknown
  /** Keeps the full text of cut results for their callers; none: what is cut is lost. */
  results?: ResultStore
  /** Cleans failed calls' content before the model reads it; default: credential shapes and framing only. */
  errorContent?: ErrorContentCleaner
  now?: () => number
}

function positive (value: number | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0
}

export class Dispatcher {
  readonly hooks: HookRegistry
  /** Changed in place by a configuration reload; read at every call. */
  readonly limits: DispatchLimits
  /** Set by buildApp when tracing is on; undefined (the usual case) costs one check per call. */
  tracer: Tracer | undefined = undefined
  /** The calls running on each tool entry (a reload releases what it replaced once they end). */
  readonly running = new RunningCalls()
  readonly #logger: Logger
  readonly #now: () => number
  readonly #errorContent: ErrorContentCleaner
  readonly #run: (call: CallState) => Promise<StepResult>

  constructor (options: DispatcherOptions) {
    this.hooks = options.hooks ?? new HookRegistry()
    this.limits = { ...DEFAULT_DISPATCH_LIMITS, ...options.limits }
    this.#logger = options.logger
    this.#now = options.now ?? (() => performance.now())
    this.#errorContent = options.errorContent ?? new ErrorContentCleaner()
    const overrides = options.toolOverrides ?? {}
    const limits = this.limits

    const timeoutOf = (call: CallState): number => {
      const entry = entryOf(call)
      if (positive(call.request.timeoutMs)) return Math.min(call.request.timeoutMs, limits.maxTimeoutMs)
      return overrides[entry.name]?.timeoutMs ?? entry.timeoutMs ?? limits.defaultTimeoutMs
    }
    const maxCharsOf = (call: CallState): number => {
      const entry = entryOf(call)
      const requested = call.request.maxResultChars
      if (typeof requested === 'number' && requested >= 0) return Math.min(requested, limits.maxResultChars)
      return overrides[entry.name]?.maxResultSizeChars ?? entry.maxResultSizeChars
    }

    this.#run = compose([
      refusedCallHookStep(this.hooks, this.#now),
      lookupStep(() => options.registry.snapshot(), options.availability),
      truncateStep(maxCharsOf, options.results && {
        store: options.results,
        toolCallable: (call) => options.registry.snapshot().tools.has(READ_RESULT_TOOL) && (call.request.visible?.(READ_RESULT_TOOL) ?? true)
      }),
      transformStep(this.hooks, this.#now),
      postHookStep(this.hooks, this.#now),
      parseStep,
      coerceStep,
      validateStep,
      preHookStep(this.hooks),
      invokeStep({
        timeoutOf,
        config: options.config,
        results: options.results,
        running: this.running,
        // Read at each call: a configuration reload changes the limits in place.
        get maxMediaBytes () { return limits.maxMediaBytes }
      })
    ])
  }

  /** Runs one tool call through the whole pipeline. Never rejects. */
  async dispatch (request: DispatchRequest): Promise<DispatchOutcome> {
    const startedAt = this.#now()
    const callId = request.callId || `call_${randomUUID()}`
    const span = this.tracer?.startDispatch(request.name, callId, request.trace, request.principal)
    const call = createCallState(request, callId, startedAt, request.logger ?? this.#logger)
    if (span !== undefined) call.traceHeaders = span.headers
    let result: StepResult
    try {
      result = await this.#run(call)
    } catch (err) {
      result = this.#fault(call, err)
    }
    const outcome = this.#finish(call, result)
    span?.end(outcome)
    return outcome
  }

  #fault (call: CallState, err: unknown): StepResult {
    call.logger.error({ err, tool: call.request.name }, 'unexpected fault in the dispatch pipeline')
    return failed('error', 'internal error while running the tool; the gateway log has the details')
  }

  #finish (call: CallState, result: StepResult): DispatchOutcome {
    const { request, callId } = call
    const base = request.logger ?? this.#logger
    const durationMs = Math.max(0, Math.round(this.#now() - call.startedAt))
    // A failure's text may quote credentials or chat framing (an upstream error, a thrown message).
    const outcome = buildOutcome(request.name, callId, this.#errorContent.result(result, call.args), durationMs)
    // One line per call. Arguments are untrusted data: only at debug, under one key, where the
    // logger's redaction of secret argument names applies. The line is written on the caller's
    // logger: call.logger binds `tool` only once the lookup found one, and this line names even an unknown one.
    base.info({ callId, tool: request.name, status: outcome.status, durationMs, truncated: outcome.truncated }, 'tool call')
    // Checked first, so that a call that logs nothing builds no call logger.
    if (base.isLevelEnabled('debug')) call.logger.debug({ args: call.args }, 'tool call arguments')
    return outcome
  }
}
