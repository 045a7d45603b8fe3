// Last step: runs the handler under a deadline. The handler's signal fires on timeout and when the
// caller's signal fires (disconnect, shutdown). A handler that ignores its signal cannot hold the
// call: the outcome is decided when the signal fires, and whatever the handler returns later is
// discarded and logged.
import { toolError, isErrorResult } from '../../registry/tool-result.ts'
import type { ToolEntry } from '../../registry/types.ts'
import { entryOf, type CallState, type Step } from '../pipeline.ts'
import type { StepResult } from '../outcome.ts'

const MAX_ERROR_CHARS = 2000
// setTimeout fires after 1 ms for any delay above 2^31 - 1 ms; a longer deadline means "about forever".
const MAX_TIMER_MS = 2_147_483_647

type Settled = { kind: 'value', value: unknown } | { kind: 'thrown', error: unknown } | { kind: 'aborted' }

export interface InvokeOptions {
  /** The deadline for this call in ms. */
  timeoutOf: (call: CallState) => number
  config: unknown
}

function typeName (value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

/** The message of a thrown value, without stack trace, capped. */
export function sanitizeError (error: unknown): string {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : `non-error value thrown (${typeName(error)})`
  const text = message.trim() === '' ? 'the tool failed without a message' : message
  if (text.length <= MAX_ERROR_CHARS) return text
  // Cut before a surrogate pair rather than through it.
  const head = text.slice(0, MAX_ERROR_CHARS - 1)
  return `${/[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head}…`
}

function fromValue (entry: ToolEntry, value: unknown): StepResult {
  if (typeof value !== 'string') {
    const message = `Tool ${entry.name} returned ${typeName(value)} instead of a string (handlers must return a string, e.g. toolResult(data))`
    return { status: 'error', content: toolError(message), message }
  }
  return { status: isErrorResult(value) ? 'error' : 'ok', content: value }
}

export function invokeStep (options: InvokeOptions): Step {
  return async function invoke (call) {
    const entry = entryOf(call)
    const callerSignal = call.request.signal
    const cancellation = call.request.cancellation
    if (callerSignal?.aborted || cancellation?.cancelled) {
      return { status: 'cancelled', content: toolError('The call was cancelled before it started'), message: 'cancelled before start' }
    }
    const timeoutMs = Math.min(options.timeoutOf(call), MAX_TIMER_MS)
    const controller = new AbortController()
    let settle: (settled: Settled) => void = () => {}
    const settledPromise = new Promise<Settled>((resolve) => { settle = resolve })
    let aborted = false
    let timedOut = false
    // Settles the call before the handler's own abort listeners run, so no reaction of the handler
    // can win; the first settle wins, as in a race.
    const abort = (reason: unknown): void => {
      if (aborted) return
      aborted = true
      settle({ kind: 'aborted' })
      controller.abort(reason)
    }
    const timer = setTimeout(() => {
      timedOut = true
      abort(new DOMException(`Tool ${entry.name} timed out after ${timeoutMs} ms`, 'TimeoutError'))
    }, timeoutMs)
    const forwardCallerAbort = (): void => abort(callerSignal?.reason)
    callerSignal?.addEventListener('abort', forwardCallerAbort, { once: true })
    const unsubscribe = cancellation?.subscribe(abort)

    const running = Promise.resolve().then(() => entry.handler(call.args, {
      // Getters: on Node 20 an AbortSignal costs ~2 µs plus GC work and a child logger a few µs,
      // so both are built only for a handler that uses them (an abort before that still shows).
      get signal () { return controller.signal },
      get logger () { return call.logger },
      callId: call.callId,
      sessionId: call.request.sessionId,
      config: options.config
    }))
    running.then((value) => settle({ kind: 'value', value }), (error: unknown) => settle({ kind: 'thrown', error }))
    const settled = await settledPromise
    clearTimeout(timer)
    callerSignal?.removeEventListener('abort', forwardCallerAbort)
    unsubscribe?.()

    if (settled.kind === 'aborted' || aborted) {
      running.then(
        () => call.logger.warn({ timeoutMs }, 'late tool result discarded: the call had already ended'),
        (err: unknown) => call.logger.debug({ err }, 'tool failed after its call had ended')
      )
      if (timedOut) {
        const message = `Tool ${entry.name} timed out after ${timeoutMs} ms`
        return { status: 'timeout', content: toolError(message), message }
      }
      const message = `Tool ${entry.name} was cancelled: the caller went away or the gateway is shutting down`
      return { status: 'cancelled', content: toolError(message), message }
    }
    if (settled.kind === 'thrown') {
      call.logger.warn({ err: settled.error }, 'tool handler threw')
      const message = sanitizeError(settled.error)
      return { status: 'error', content: toolError(message), message }
    }
    return fromValue(entry, settled.value)
  }
}
