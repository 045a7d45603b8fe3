// The dispatch pipeline as small composable steps, in the manner of undici interceptors: each step
// gets the call and `next`, and either answers itself (an invalid argument, a block) or wraps what
// the rest of the chain answers (hooks, truncation). Each step is testable on its own.
import type { Logger } from 'pino'
import type { ToolEntry } from '../registry/types.ts'
import type { Cancellation } from './cancellation.ts'
import type { StepResult } from './outcome.ts'

export interface DispatchRequest {
  /** The tool name the caller asked for. */
  name: string
  /** An object, or the JSON string a model emits. */
  args: unknown
  callId?: string
  sessionId?: string
  /** Aborts the call when the caller goes away or the gateway shuts down. */
  signal?: AbortSignal
  /** The same as `signal`, cheaper on the HTTP hot path (see cancellation.ts); either or both may be set. */
  cancellation?: Cancellation
  /** Per-call deadline override, capped by the dispatcher's maximum. */
  timeoutMs?: number
  /** Per-call result cap override, capped by the dispatcher's maximum. */
  maxResultChars?: number
  /** Tools outside this predicate answer as unknown (an API key limited to some toolsets). */
  visible?: (tool: string) => boolean
  /** Logger of the caller (an HTTP request's, carrying its request id); default the dispatcher's. */
  logger?: Logger
}

/** Mutable state of one call as it moves through the steps. */
export interface CallState {
  readonly request: DispatchRequest
  readonly callId: string
  readonly startedAt: number
  logger: Logger
  /** Set by the lookup step; every later step can rely on it. */
  entry?: ToolEntry
  /** The parsed (then coerced) arguments. */
  args: Record<string, unknown>
}

/**
 * A call whose logger (`base` with the callId bound) is built on first use: a pino child costs
 * microseconds per level of nesting, and at the usual levels most calls never log.
 */
class LazyCallState implements CallState {
  readonly request: DispatchRequest
  readonly callId: string
  readonly startedAt: number
  entry?: ToolEntry
  args: Record<string, unknown> = {}
  readonly #base: Logger
  #bindings: Record<string, unknown>
  #logger: Logger | undefined = undefined

  constructor (request: DispatchRequest, callId: string, startedAt: number, base: Logger) {
    this.request = request
    this.callId = callId
    this.startedAt = startedAt
    this.#base = base
    this.#bindings = { callId }
  }

  get logger (): Logger {
    return (this.#logger ??= this.#base.child(this.#bindings))
  }

  set logger (value: Logger) {
    this.#logger = value
  }

  addBindings (more: Record<string, unknown>): void {
    if (this.#logger === undefined) this.#bindings = { ...this.#bindings, ...more }
    else this.#logger = this.#logger.child(more)
  }
}

export function createCallState (request: DispatchRequest, callId: string, startedAt: number, base: Logger): CallState {
  return new LazyCallState(request, callId, startedAt, base)
}

/** Binds more keys to the call's logger: the same lines as `call.logger = call.logger.child(bindings)`. */
export function bindLogger (call: CallState, bindings: Record<string, unknown>): void {
  if (call instanceof LazyCallState) call.addBindings(bindings)
  else call.logger = call.logger.child(bindings)
}

/** `next(call)` runs the rest of the chain on the call. */
export type Step = (call: CallState, next: (call: CallState) => Promise<StepResult>) => Promise<StepResult>

/** Chains steps so the first wraps the second and so on; the last one's `next` is never called. */
export function compose (steps: readonly Step[]): (call: CallState) => Promise<StepResult> {
  // Built once, from the last step back: each link passes the call on, so running a call
  // allocates no closures (this is the hot path of every dispatch).
  const end = (): Promise<StepResult> => Promise.reject(new Error('dispatch pipeline ended without an answer'))
  return steps.reduceRight<(call: CallState) => Promise<StepResult>>((next, step) => (call) => step(call, next), end)
}

/** The entry, which the lookup step has set before any step that needs it runs. */
export function entryOf (call: CallState): ToolEntry {
  if (call.entry === undefined) throw new Error('dispatch step ran before the lookup step')
  return call.entry
}
