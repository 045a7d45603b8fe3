// One execution as the main thread sees it: the run sent to a worker, its inner calls (counted,
// checked again, queued past maxConcurrentCalls, each with the execution's abort signal), its deadline
// and cancellation (an Atomics flag the VM's interrupt handler reads, then a stop message, then a
// grace after which the pool terminates the worker), and its outcome.
import { isRecord, messageOf } from '../../shared/objects.ts'
import { toolsInScope } from './failure-text.ts'
import { STOP_CANCELLED, STOP_TIMEOUT } from './types.ts'
import type { FromWorker, InnerCallAnswer, RunScriptOptions, ScriptFailureKind, ScriptOutcome, ToWorker, WorkerOutcome } from './types.ts'

type CallMessage = Extract<FromWorker, { type: 'call' }>

/** How long a worker has to answer a stop before it is terminated and replaced. */
export const STOP_GRACE_MS = 1_000

export interface ExecutionHooks {
  post: (message: ToWorker) => void
  /** The worker did not end the run within the grace after a stop. */
  hung: () => void
  settled: (outcome: ScriptOutcome) => void
}

export function timeoutMessage (timeoutMs: number): string {
  return `the script ran past its deadline of ${timeoutMs} ms`
}

export class Execution {
  readonly runId: number
  readonly #options: RunScriptOptions
  readonly #deadline: number
  readonly #hooks: ExecutionHooks
  readonly #stopFlag = new SharedArrayBuffer(4)
  readonly #controller = new AbortController()
  readonly #waiting: CallMessage[] = []
  readonly #onAbort = (): void => this.stop('cancelled')
  #calls = 0
  #inFlight = 0
  #stopped: 'timeout' | 'cancelled' | undefined
  #settled = false
  #timer: NodeJS.Timeout | undefined
  #graceTimer: NodeJS.Timeout | undefined

  constructor (runId: number, options: RunScriptOptions, deadline: number, hooks: ExecutionHooks) {
    this.runId = runId
    this.#options = options
    this.#deadline = deadline
    this.#hooks = hooks
  }

  begin (): void {
    const { code, toolNames, timeoutMs, limits, signal } = this.#options
    this.#hooks.post({ type: 'run', runId: this.runId, code, toolNames: [...toolNames], deadline: this.#deadline, timeoutMs, limits, stopFlag: this.#stopFlag })
    this.#timer = setTimeout(() => this.stop('timeout'), Math.max(0, this.#deadline - Date.now()))
    signal?.addEventListener('abort', this.#onAbort, { once: true })
    if (signal?.aborted === true) this.stop('cancelled')
  }

  onMessage (message: FromWorker): void {
    if (message.type === 'call') this.#onCall(message)
    else if (message.type === 'done') this.#onDone(message.outcome)
  }

  stop (kind: 'timeout' | 'cancelled'): void {
    if (this.#settled || this.#stopped !== undefined) return
    this.#stopped = kind
    Atomics.store(new Int32Array(this.#stopFlag), 0, kind === 'timeout' ? STOP_TIMEOUT : STOP_CANCELLED)
    this.#hooks.post({ type: 'stop', runId: this.runId })
    this.#waiting.length = 0
    this.#controller.abort(new Error(kind === 'timeout' ? timeoutMessage(this.#options.timeoutMs) : 'the execution was cancelled'))
    this.#graceTimer = setTimeout(() => this.#hooks.hung(), STOP_GRACE_MS)
  }

  /** The worker is gone: the run ends as its stop said, or with `fallback`. */
  abandon (fallback: { kind: ScriptFailureKind, message: string }): void {
    const stopped = this.#stopped
    const failure = stopped === 'timeout'
      ? { kind: stopped, message: timeoutMessage(this.#options.timeoutMs) }
      : stopped === 'cancelled' ? { kind: stopped, message: 'the execution was cancelled' } : fallback
    this.#settle({ ok: false, ...failure, logs: [], calls: this.#calls })
  }

  #onCall (message: CallMessage): void {
    if (this.#settled || this.#stopped !== undefined) return
    this.#calls++
    const { toolNames, limits } = this.#options
    if (!toolNames.includes(message.name)) {
      this.#answer(message.callId, { ok: false, message: `no tool ${message.name}; tools in scope: ${toolsInScope(toolNames)}` })
    } else if (this.#calls > limits.maxCalls) {
      const max = limits.maxCalls
      this.#answer(message.callId, { ok: false, message: `code.maxCalls (${max}) reached: a script may make at most ${max} tool calls` })
    } else if (this.#inFlight >= limits.maxConcurrentCalls) {
      this.#waiting.push(message)
    } else {
      this.#startCall(message)
    }
  }

  #startCall (message: CallMessage): void {
    this.#inFlight++
    const signal = this.#controller.signal
    const answer = Promise.resolve()
      .then(() => this.#options.callTool(message.name, JSON.parse(message.argsJson), signal))
      .catch((error: unknown): InnerCallAnswer => ({ ok: false, message: `tools.${message.name} failed: ${messageOf(error)}` }))
    answer.then((answered) => {
      this.#inFlight--
      this.#answer(message.callId, answered)
      while (this.#inFlight < this.#options.limits.maxConcurrentCalls && this.#waiting.length > 0 && !this.#settled) {
        this.#startCall(this.#waiting.shift() as CallMessage)
      }
    }).catch(() => {})
  }

  #answer (callId: number, answered: unknown): void {
    if (this.#settled || this.#stopped !== undefined) return
    const post = (text: string, ok: boolean): void => {
      this.#hooks.post(ok ? { type: 'answer', runId: this.runId, callId, ok, json: text } : { type: 'answer', runId: this.runId, callId, ok, message: text })
    }
    if (!isRecord(answered) || (answered.ok !== true && typeof answered.message !== 'string')) {
      post('the tool gave no answer', false)
      return
    }
    if (answered.ok !== true) {
      post(answered.message as string, false)
      return
    }
    let json: string | undefined
    try {
      json = JSON.stringify(answered.value ?? null)
    } catch (error) {
      post(`the tool's answer is not JSON: ${messageOf(error)}`, false)
      return
    }
    post(json ?? 'null', true)
  }

  #onDone (outcome: WorkerOutcome): void {
    if (!outcome.ok) {
      this.#settle({ ok: false, kind: outcome.kind, message: outcome.message, logs: outcome.logs, calls: this.#calls })
      return
    }
    let result: unknown
    try {
      result = JSON.parse(outcome.resultJson)
    } catch (error) {
      this.#settle({ ok: false, kind: 'internal', message: `the sandbox returned a result that is not JSON: ${messageOf(error)}`, logs: outcome.logs, calls: this.#calls })
      return
    }
    this.#settle({ ok: true, result, resultJson: outcome.resultJson, logs: outcome.logs, calls: this.#calls })
  }

  #settle (outcome: ScriptOutcome): void {
    if (this.#settled) return
    this.#settled = true
    clearTimeout(this.#timer)
    clearTimeout(this.#graceTimer)
    this.#options.signal?.removeEventListener('abort', this.#onAbort)
    this.#waiting.length = 0
    // Calls the script started and never awaited end with it.
    if (!this.#controller.signal.aborted) this.#controller.abort(new Error('the script has ended'))
    this.#hooks.settled(outcome)
  }
}
