// Last step: runs the handler under a deadline. The handler's signal fires on timeout and when the
// caller's signal fires (disconnect, shutdown). A handler that ignores its signal cannot hold the
// call: the outcome is decided when the signal fires, and whatever the handler returns later is
// discarded and logged.
import { isErrorResult } from '../../registry/tool-result.ts'
import type { Logger } from 'pino'
import type { CallerIdentity, InnerCallResult, InputRequests, InputResponses, MediaResult, ResultPage, ToolContext, ToolEntry, ToolProgress } from '../../registry/types.ts'
import { InputUnsupportedError } from '../../shared/errors.ts'
import { checkQuestions, describeQuestions } from '../call/questions.ts'
import { checkMedia, isMediaResult } from '../call/media.ts'
import { pageOf } from '../../results/read.ts'
import type { ResultStore } from '../../results/result-store.ts'
import type { RunningCalls } from '../call/running-calls.ts'
import { entryOf, type CallState, type Step } from '../call/pipeline.ts'
import { failed, type StepResult } from '../call/outcome.ts'
import { MAX_TIMER_MS } from '../../shared/timers.ts'
import { clipText } from '../../shared/clip-text.ts'
import type { TraceHeaders, TraceParent } from '../../tracing/tracer.ts'
import { ProgressCoalescer } from '../call/progress-coalescer.ts'
import { callInner } from '../call/inner.ts'
import { Deadline } from '../call/deadline.ts'

export interface InvokeOptions {
  /** The deadline for this call in ms. */
  timeoutOf: (call: CallState) => number
  /** Where cut results are kept, read through ctx.readResult (the read_result tool). */
  results?: ResultStore
  /** Counts the calls running on each entry, for a reload that waits for them. */
  running?: RunningCalls
  /** The span an inner call's span hangs from: the context its call's headers carry (only when tracing). */
  traceOf?: (headers: TraceHeaders) => TraceParent | undefined
}

/** The error_type of a handler that broke the contract by returning something else than a string. */
export const INVALID_RESULT_TYPE = 'invalid_result_type'

function typeName (value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

/** The class an error names itself by: its `name`, else (a subclass that kept "Error") its constructor's. */
function className (error: Error): string {
  if (error.name !== 'Error' && typeof error.name === 'string' && error.name !== '') return error.name
  const constructorName: unknown = error.constructor?.name
  return typeof constructorName === 'string' && constructorName !== '' ? constructorName : 'Error'
}

/** Gateway errors (MCP failures thrown in handlers) carry messages written for the model already. */
function isGatewayError (error: Error): boolean {
  const code: unknown = (error as { code?: unknown }).code
  return typeof code === 'string' && code.startsWith('GW_ERR_')
}

/**
 * The message of a thrown value, without stack trace, capped. An exception is named by its class
 * (`TypeError: x.map is not a function`), which tells the model a bug from a refusal.
 */
export function sanitizeError (error: unknown): string {
  if (!(error instanceof Error)) {
    const text = typeof error === 'string' ? error : `non-error value thrown (${typeName(error)})`
    return clipText(text.trim() === '' ? 'the tool failed without a message' : text)
  }
  const message = error.message.trim() === '' ? 'the tool failed without a message' : error.message
  return clipText(isGatewayError(error) ? message : `${className(error)}: ${message}`)
}

function fromValue (entry: ToolEntry, value: unknown, maxMediaBytes: number): StepResult {
  // The usual answer first: a string costs one typeof more than it ever did.
  if (typeof value === 'string') return { status: isErrorResult(value) ? 'error' : 'ok', content: value }
  if (isMediaResult(value)) return withMedia(value, maxMediaBytes)
  const resultType = typeName(value)
  const message = `Tool ${entry.name} returned ${resultType} instead of a string or {text, media} (handlers must return a string, e.g. toolResult(data), or mediaResult(data, media))`
  // Structured beside the sentence: a client or an audit hook tells a broken tool from a refusal without parsing it.
  return { ...failed('error', message, { error_type: INVALID_RESULT_TYPE, tool: entry.name, result_type: resultType }), errorType: INVALID_RESULT_TYPE }
}

/**
 * A result with media. Media go only with successes: a failure's text is cleaned of credentials
 * and parsed as {"error"} downstream, and the images of a failed call are no answer to the model.
 */
function withMedia (value: MediaResult, maxMediaBytes: number): StepResult {
  if (isErrorResult(value.text)) return { status: 'error', content: value.text }
  const { media, dropped } = checkMedia(value.media, maxMediaBytes)
  const content = dropped.length === 0 ? value.text : `${value.text}\n${dropped.join('\n')}`
  return media.length === 0 ? { status: 'ok', content } : { status: 'ok', content, media }
}

/** The handler's ctx: what it may know of its call, and how to report on it. */
class HandlerContext implements ToolContext {
  readonly callId: string
  readonly sessionId: string | undefined
  readonly principal: string | undefined
  readonly identity: CallerIdentity | undefined
  readonly visible: ((tool: string) => boolean) | undefined
  readonly progressWanted: boolean
  readonly signal: AbortSignal
  readonly config: unknown
  readonly traceHeaders: TraceHeaders | undefined
  /** Set once the call has its answer: progress after that would describe a call already answered. */
  ended = false
  readonly #call: CallState
  readonly #results: ResultStore | undefined
  readonly #options: InvokeOptions
  readonly #progress: ProgressCoalescer | undefined
  readonly #deadline: Deadline

  constructor (call: CallState, signal: AbortSignal, options: InvokeOptions, deadline: Deadline) {
    const { request } = call
    this.callId = call.callId
    this.sessionId = request.sessionId
    this.principal = request.principal
    this.identity = request.identity
    this.visible = request.visible
    this.progressWanted = request.onProgress !== undefined
    this.signal = signal
    // The whole configuration the call started with (the dispatcher reads its dispatch and tools parts).
    this.config = call.config
    this.traceHeaders = call.traceHeaders
    this.#call = call
    this.#results = options.results
    this.#options = options
    this.#deadline = deadline
    const onProgress = request.onProgress
    // The coalescer sends nothing once closed; closing sends the report still waiting, before the answer.
    if (onProgress !== undefined) this.#progress = new ProgressCoalescer(onProgress)
  }

  /** Read through: the call's logger is built only if something logs (see createCallState). */
  get logger (): Logger { return this.#call.logger }

  reportProgress (update: ToolProgress): void {
    if (!this.ended) this.#progress?.report(update)
  }

  /** The call is answered: a report still waiting for its interval goes now, and none after it. */
  endProgress (): void {
    this.#progress?.close()
  }

  /** The caller answers, or cannot; the deadline stops while it thinks (a person may take minutes). */
  async ask (requests: InputRequests): Promise<InputResponses> {
    checkQuestions(requests)
    const ask = this.#call.request.ask
    if (ask === undefined) {
      throw new InputUnsupportedError(`Tool ${this.#call.request.name} asked its caller (${describeQuestions(requests)}), and this caller cannot be asked (a call in a batch or an event stream, or a caller with no way to answer): call the tool alone, POST /dispatch/${this.#call.request.name}, which answers input_required, or over MCP`)
    }
    this.signal.throwIfAborted()
    this.#deadline.pause()
    try {
      return await ask(requests, this.signal)
    } finally {
      this.#deadline.resume()
    }
  }

  /**
   * Another tool, called as this call's caller (ctx.callTool): a request of its own built from this
   * one's scope and identity, run by the entry as it runs any call, under this call's signal and
   * within what its deadline leaves. It cannot ask, nor wait for an approval (inner.ts).
   */
  get callTool (): ((name: string, args: unknown, signal?: AbortSignal) => Promise<InnerCallResult>) | undefined {
    const runInner = this.#call.request.runInner
    if (runInner === undefined) return undefined
    return async (name, args, signal) => await callInner(runInner, this.#call, name, args, {
      signal: signal === undefined ? this.signal : AbortSignal.any([this.signal, signal]),
      withinMs: this.#deadline.remainingMs(),
      trace: this.traceHeaders === undefined ? undefined : this.#options.traceOf?.(this.traceHeaders)
    })
  }

  /** Only this caller's own results: the principal is the call's, not an argument a tool could forge. */
  async readResult (id: string, offset: number, limit: number): Promise<ResultPage | undefined> {
    const kept = await this.#results?.find(this.principal, id)
    return kept === undefined ? undefined : pageOf(kept, offset, limit)
  }
}

/**
 * Runs the handler until the first of: it settles, the deadline passes, the caller's signal fires.
 * On the last two the call is answered before the handler's signal is aborted, so that no reaction
 * of the handler to its signal can win; what it answers later is discarded and logged.
 */
async function runHandler (call: CallState, entry: ToolEntry, timeoutMs: number, options: InvokeOptions): Promise<StepResult> {
  const callerSignal = call.request.signal
  const controller = new AbortController()
  const stopped = Promise.withResolvers<StepResult>()
  let deadlinePassed = false
  const stop = (reason: unknown, result: StepResult): void => {
    if (ctx.ended) return
    ctx.ended = true
    stopped.resolve(result)
    controller.abort(reason)
  }
  const deadline = new Deadline(timeoutMs, () => {
    const message = `Tool ${entry.name} timed out after ${timeoutMs} ms`
    deadlinePassed = true
    stop(new DOMException(message, 'TimeoutError'), failed('timeout', message))
  })
  const ctx = new HandlerContext(call, controller.signal, options, deadline)
  const onCallerAbort = (): void => {
    const reason: unknown = callerSignal?.reason
    // A cancel that says why (DELETE /calls/:id) is named; else it was the connection or shutdown.
    const why = reason instanceof Error && isGatewayError(reason) ? reason.message : 'the caller went away or the gateway is shutting down'
    stop(reason, failed('cancelled', `Tool ${entry.name} was cancelled: ${why}`))
  }
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true })
  // An async wrapper, so that a handler throwing before it returns a promise fails the same way.
  const running = (async () => await entry.handler(call.args, ctx))()
  const answered = running.then(
    (value) => fromValue(entry, value, call.config.dispatch.maxMediaBytes),
    // Once the call has its answer, a rejection is mostly the handler obeying its aborted signal:
    // reportLate logs it at debug, not as a fault of the tool.
    (error: unknown) => ctx.ended ? failed('error', sanitizeError(error)) : thrown(call, error))
  try {
    return await Promise.race([answered, stopped.promise])
  } finally {
    deadline.clear()
    callerSignal?.removeEventListener('abort', onCallerAbort)
    if (ctx.ended) reportLate(call, running, deadlinePassed ? timeoutMs : undefined)
    ctx.ended = true
    ctx.endProgress()
  }
}

/**
 * A handler that outlives its deadline ignored its signal: a fault of the tool worth a warning.
 * One that answers after its caller left is ordinary (the work was under way): debug only.
 */
function reportLate (call: CallState, late: Promise<unknown>, timeoutMs: number | undefined): void {
  late.then(
    () => {
      if (timeoutMs !== undefined) call.logger.warn({ timeoutMs }, 'late tool result discarded: the call had already ended')
      else call.logger.debug('late tool result discarded: the call had been cancelled')
    },
    (err: unknown) => call.logger.debug({ err }, 'tool failed after its call had ended')
  )
}

export function invokeStep (options: InvokeOptions): Step {
  return async function invoke (call) {
    const entry = entryOf(call)
    if (call.request.signal?.aborted === true) {
      return failed('cancelled', 'The call was cancelled before it started')
    }
    const running = options.running
    running?.enter(entry)
    try {
      return await runHandler(call, entry, Math.min(options.timeoutOf(call), MAX_TIMER_MS), options)
    } finally {
      running?.leave(entry)
    }
  }
}

function thrown (call: CallState, error: unknown): StepResult {
  call.logger.warn({ err: error }, 'tool handler threw')
  return failed('error', sanitizeError(error))
}
