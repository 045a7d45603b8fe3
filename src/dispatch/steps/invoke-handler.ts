// Last step: runs the handler under a deadline. The handler's signal fires on timeout and when the
// caller's signal fires (disconnect, shutdown). A handler that ignores its signal cannot hold the
// call: the outcome is decided when the signal fires, and whatever the handler returns later is
// discarded and logged.
import { isErrorResult } from '../../registry/tool-result.ts'
import type { Logger } from 'pino'
import type { MediaResult, ResultPage, ToolContext, ToolEntry, ToolProgress } from '../../registry/types.ts'
import { checkMedia, DEFAULT_MAX_MEDIA_BYTES, isMediaResult } from '../media.ts'
import { pageOf } from '../../results/read.ts'
import type { ResultStore } from '../../results/result-store.ts'
import { entryOf, type CallState, type Step } from '../pipeline.ts'
import { failed, type StepResult } from '../outcome.ts'
import type { Cancellation } from '../cancellation.ts'
import { Pending } from '../pending.ts'
import { DeadlineTimer, type Deadline } from '../deadlines.ts'
import { MAX_TIMER_MS } from '../../timers.ts'
import { clipText } from '../error-text.ts'

export interface InvokeOptions {
  /** The deadline for this call in ms. */
  timeoutOf: (call: CallState) => number
  config: unknown
  /** Bytes of images and audio one call may carry; past it, items are dropped with a note (default 10 MiB). */
  maxMediaBytes?: number
  /** Where cut results are kept, read through ctx.readResult (the read_result tool). */
  results?: ResultStore
  /** The timer the deadlines share; default one of this step's own. */
  deadlines?: DeadlineTimer
}

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
  return failed('error', `Tool ${entry.name} returned ${typeName(value)} instead of a string or {text, media} (handlers must return a string, e.g. toolResult(data), or mediaResult(data, media))`)
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

/**
 * One handler run, which is also the handler's ctx. It ends once, with the first of: the handler
 * settles, the deadline passes, the caller goes away. A class rather than closures and an object
 * of getters: this is the hot path of every call, and each allocation there shows under load.
 */
class HandlerRun implements ToolContext {
  readonly callId: string
  readonly sessionId: string | undefined
  readonly principal: string | undefined
  readonly config: unknown
  readonly #call: CallState
  readonly #entry: ToolEntry
  readonly #timeoutMs: number
  readonly #maxMediaBytes: number
  readonly #answer: Pending
  readonly #results: ResultStore | undefined
  #ended = false
  #aborted = false
  /** The call ended by its deadline (not by its caller): a late answer then is the tool's fault. */
  #deadlinePassed = false
  #abortReason: unknown = undefined
  /** Built only when the handler reads ctx.signal: most handlers never do (bench/README.md). */
  #controller: AbortController | undefined = undefined
  #running: Promise<unknown> | undefined = undefined
  #deadline: Deadline | undefined = undefined
  #unsubscribe: (() => void) | undefined = undefined
  #callerSignal: AbortSignal | undefined = undefined
  #forwardCallerAbort: (() => void) | undefined = undefined

  constructor (call: CallState, entry: ToolEntry, timeoutMs: number, options: InvokeOptions, answer: Pending) {
    this.callId = call.callId
    this.sessionId = call.request.sessionId
    this.principal = call.request.principal
    this.config = options.config
    this.#call = call
    this.#entry = entry
    this.#timeoutMs = timeoutMs
    this.#maxMediaBytes = options.maxMediaBytes ?? DEFAULT_MAX_MEDIA_BYTES
    this.#answer = answer
    this.#results = options.results
  }

  /** Only this caller's own results: the principal is the call's, not an argument a tool could forge. */
  readResult (id: string, offset: number, limit: number): ResultPage | undefined {
    const kept = this.#results?.get(this.principal, id)
    return kept === undefined ? undefined : pageOf(kept, offset, limit)
  }

  /** An abort that came before the handler read its signal still shows on it. */
  get signal (): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController()
      if (this.#aborted) this.#controller.abort(this.#abortReason)
    }
    return this.#controller.signal
  }

  get logger (): Logger {
    return this.#call.logger
  }

  get visible (): ((tool: string) => boolean) | undefined {
    return this.#call.request.visible
  }

  get progressWanted (): boolean {
    return this.#call.request.onProgress !== undefined
  }

  /** Passed on only while the call runs: a report after its end would describe a call already answered. */
  reportProgress (update: ToolProgress): void {
    if (this.#ended) return
    this.#call.request.onProgress?.(update)
  }

  start (deadlines: DeadlineTimer, cancellation: Cancellation | undefined, callerSignal: AbortSignal | undefined): void {
    this.#deadline = deadlines.schedule(this.#timeoutMs, () => this.#timedOut())
    if (cancellation !== undefined) this.#unsubscribe = cancellation.subscribe((reason) => this.#cancelled(reason))
    if (callerSignal !== undefined) {
      this.#callerSignal = callerSignal
      this.#forwardCallerAbort = () => this.#cancelled(callerSignal.reason)
      callerSignal.addEventListener('abort', this.#forwardCallerAbort, { once: true })
    }
    let returned: unknown
    try {
      returned = this.#entry.handler(this.#call.args, this)
    } catch (error) {
      this.#end(thrown(this.#call, error))
      return
    }
    const running = this.#running = Promise.resolve(returned)
    if (this.#aborted) this.#reportLate(running)
    else running.then((value) => this.#end(fromValue(this.#entry, value, this.#maxMediaBytes)), (error: unknown) => this.#end(thrown(this.#call, error)))
  }

  #end (result: StepResult): boolean {
    if (this.#ended) return false
    this.#ended = true
    this.#deadline?.cancel()
    this.#unsubscribe?.()
    if (this.#forwardCallerAbort !== undefined) this.#callerSignal?.removeEventListener('abort', this.#forwardCallerAbort)
    this.#answer.resolve(result)
    return true
  }

  /** Ends the call before the handler's own abort listeners run, so no reaction of the handler can win. */
  #abort (reason: unknown, result: StepResult): void {
    if (!this.#end(result)) return
    this.#aborted = true
    this.#abortReason = reason
    this.#controller?.abort(reason)
    if (this.#running !== undefined) this.#reportLate(this.#running)
  }

  #timedOut (): void {
    const message = `Tool ${this.#entry.name} timed out after ${this.#timeoutMs} ms`
    this.#deadlinePassed = true
    this.#abort(new DOMException(message, 'TimeoutError'), failed('timeout', message))
  }

  #cancelled (reason: unknown): void {
    const message = `Tool ${this.#entry.name} was cancelled: the caller went away or the gateway is shutting down`
    this.#abort(reason, failed('cancelled', message))
  }

  #reportLate (late: Promise<unknown>): void {
    // A handler that outlives its deadline ignored its signal: a fault of the tool worth a warning.
    // One that answers after its caller left is ordinary (the work was under way): debug only.
    late.then(
      () => {
        if (this.#deadlinePassed) this.#call.logger.warn({ timeoutMs: this.#timeoutMs }, 'late tool result discarded: the call had already ended')
        else this.#call.logger.debug('late tool result discarded: the call had been cancelled')
      },
      (err: unknown) => this.#call.logger.debug({ err }, 'tool failed after its call had ended')
    )
  }
}

export function invokeStep (options: InvokeOptions): Step {
  const deadlines = options.deadlines ?? new DeadlineTimer()
  return function invoke (call) {
    const entry = entryOf(call)
    const callerSignal = call.request.signal
    const cancellation = call.request.cancellation
    if (callerSignal?.aborted || cancellation?.cancelled) {
      return failed('cancelled', 'The call was cancelled before it started')
    }
    const timeoutMs = Math.min(options.timeoutOf(call), MAX_TIMER_MS)
    const answer = new Pending()
    new HandlerRun(call, entry, timeoutMs, options, answer).start(deadlines, cancellation, callerSignal)
    return answer
  }
}

function thrown (call: CallState, error: unknown): StepResult {
  call.logger.warn({ err: error }, 'tool handler threw')
  return failed('error', sanitizeError(error))
}
