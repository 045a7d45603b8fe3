// The dispatch pipeline as small composable steps, in the manner of undici interceptors: each step
// gets the call and `next`, and either answers itself (an invalid argument, a block) or wraps what
// the rest of the chain answers (hooks, truncation). Each step is testable on its own.
import type { Logger } from 'pino'
import type { ToolEntry, ToolProgress } from '../registry/types.ts'
import type { Cancellation } from './cancellation.ts'
import type { StepResult } from './outcome.ts'
import { Pending } from './pending.ts'

export interface DispatchRequest {
  /** The tool name the caller asked for. */
  name: string
  /** An object, or the JSON string a model emits. */
  args: unknown
  callId?: string
  sessionId?: string
  /** The caller's API key name, handed to the handler as ctx.principal. */
  principal?: string
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
  /** Receives the handler's progress reports while the call runs (an MCP progress token). */
  onProgress?: (update: ToolProgress) => void
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
 * A call whose logger (`base` with callId, and tool once looked up, bound) is built on first use:
 * a pino child costs microseconds per level of nesting, and at the usual levels most calls never log.
 */
class LazyCallState implements CallState {
  readonly request: DispatchRequest
  readonly callId: string
  readonly startedAt: number
  entry?: ToolEntry = undefined
  args: Record<string, unknown> = {}
  readonly #base: Logger
  #logger: Logger | undefined = undefined
  /** Whether #logger already carries the tool binding. */
  #boundTool = false

  constructor (request: DispatchRequest, callId: string, startedAt: number, base: Logger) {
    this.request = request
    this.callId = callId
    this.startedAt = startedAt
    this.#base = base
  }

  get logger (): Logger {
    const tool = this.entry?.name
    if (this.#logger === undefined) {
      this.#boundTool = tool !== undefined
      this.#logger = this.#base.child(tool === undefined ? { callId: this.callId } : { callId: this.callId, tool })
    } else if (!this.#boundTool && tool !== undefined) {
      // Built before the lookup: lines from now on name the tool too.
      this.#boundTool = true
      this.#logger = this.#logger.child({ tool })
    }
    return this.#logger
  }

  set logger (value: Logger) {
    this.#logger = value
    this.#boundTool = true
  }
}

export function createCallState (request: DispatchRequest, callId: string, startedAt: number, base: Logger): CallState {
  return new LazyCallState(request, callId, startedAt, base)
}

/**
 * What a step answers: the result itself when it has it at once (an invalid argument, a check that
 * needs no I/O), a Pending (the handler's step: what wraps it runs synchronously when it answers),
 * or a promise (hooks, a probe). Under load every promise hop costs CPU (bench/README.md), and most
 * steps never wait for anything.
 */
export type StepOutput = StepResult | Pending | Promise<StepResult>

/** `next(call)` runs the rest of the chain on the call. */
export type Step = (call: CallState, next: (call: CallState) => StepOutput) => StepOutput

/** Chains steps so the first wraps the second and so on; the last one's `next` is never called. */
export function compose (steps: readonly Step[]): (call: CallState) => StepOutput {
  // Built once, from the last step back: each link passes the call on, so running a call
  // allocates no closures (this is the hot path of every dispatch).
  const end = (): StepOutput => { throw new Error('dispatch pipeline ended without an answer') }
  return steps.reduceRight<(call: CallState) => StepOutput>((next, step) => (call) => step(call, next), end)
}

/** `then` for a step's output: runs `after` at once on a plain result, else when the output settles. */
export function afterOutput (output: StepOutput, after: (result: StepResult) => StepOutput): StepOutput {
  if (output instanceof Pending) return output.map(after)
  if (output instanceof Promise) return output.then(after)
  return after(output)
}

/** The entry, which the lookup step has set before any step that needs it runs. */
export function entryOf (call: CallState): ToolEntry {
  if (call.entry === undefined) throw new Error('dispatch step ran before the lookup step')
  return call.entry
}
