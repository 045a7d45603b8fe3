// One execution inside a worker: a fresh QuickJS runtime and context, the prelude, the script as
// the body of an async function, and the pump that runs its jobs after each answer of the pool.
// Nothing of the host enters the VM but strings and numbers; the result leaves it as JSON text.
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core'
import { readDescription, syntaxMessage, thrownMessage, toolsInScope } from './failure-text.ts'
import { LogSink } from './log-sink.ts'
import { PRELUDE, SCRIPT_FILE, SCRIPT_PREFIX, SCRIPT_SUFFIX } from './prelude.ts'
import { STOP_CANCELLED, STOP_NONE, STOP_TIMEOUT } from './types.ts'
import { effectiveStackBytes, MEMORY_HEADROOM_BYTES, memoryCeiling } from './wasm-module.ts'
import type { FromWorker, ScriptFailureKind, ToWorker, WorkerOutcome } from './types.ts'

export type RunJob = Extract<ToWorker, { type: 'run' }>
type Failure = { ok: false, kind: ScriptFailureKind, message: string }
type Ending = { ok: true, resultJson: string } | Failure

export class ScriptVm {
  readonly #job: RunJob
  readonly #post: (message: FromWorker) => void
  readonly #onEnd: (tainted: boolean) => void
  readonly #stop: Int32Array
  readonly #logs: LogSink
  readonly #toolNames: Set<string>
  #module: QuickJSWASMModule | undefined
  #rt: QuickJSRuntime | undefined
  #ctx: QuickJSContext | undefined
  #helpers: QuickJSHandle[] = []
  #promise: QuickJSHandle | undefined
  #calls = 0
  #ended = false
  /** The module must not serve another run (out of memory, or a disposal that failed). */
  #tainted = false

  constructor (job: RunJob, post: (message: FromWorker) => void, onEnd: (tainted: boolean) => void) {
    this.#job = job
    this.#post = post
    this.#onEnd = onEnd
    this.#stop = new Int32Array(job.stopFlag)
    this.#logs = new LogSink(job.limits.maxOutputBytes)
    this.#toolNames = new Set(job.toolNames)
  }

  get runId (): number {
    return this.#job.runId
  }

  start (module: QuickJSWASMModule): void {
    if (this.#ended) return
    this.#module = module
    this.#guarded(() => {
      const ctx = this.#setUp(module)
      const evaluated = ctx.evalCode(SCRIPT_PREFIX + this.#job.code + SCRIPT_SUFFIX, SCRIPT_FILE)
      if (evaluated.error !== undefined) {
        this.#endWith(evaluated.error, true)
        return
      }
      this.#promise = evaluated.value
      this.#pump()
    })
  }

  /**
   * Runs `step` and ends the run if it throws on the host side: the set-up interrupted by a stop (the
   * prelude runs under the same interrupt handler), the thread's own stack exhausted by the VM's C
   * frames, or a bug. The VM may be half-way through a C function then: its module is not reused.
   */
  #guarded (step: () => void): void {
    try {
      step()
    } catch (error) {
      this.#tainted = true
      const stack = error instanceof RangeError ? this.#stackFailure() : undefined
      this.#end(this.#stopFailure() ?? stack ?? { ok: false, kind: 'internal', message: `the sandbox failed: ${String(error)}` })
    }
  }

  /** The pool's answer to an inner call: settles its promise inside the VM, then runs what follows. */
  answer (callId: number, ok: boolean, text: string): void {
    this.#guarded(() => this.#settle(callId, ok, text))
  }

  #settle (callId: number, ok: boolean, text: string): void {
    const ctx = this.#ctx
    if (this.#ended || ctx === undefined) return
    const id = ctx.newNumber(callId)
    const body = ctx.newString(text)
    const settled = ctx.callFunction(this.#helpers[0], ctx.undefined, id, ok ? ctx.true : ctx.false, body)
    id.dispose()
    body.dispose()
    if (settled.error !== undefined) {
      this.#endWith(settled.error, false)
      return
    }
    settled.value.dispose()
    this.#pump()
  }

  /** The pool stopped the run (deadline or cancellation) while the VM was waiting. */
  stop (): void {
    if (!this.#ended) this.#end(this.#stopFailure() ?? { ok: false, kind: 'cancelled', message: 'the execution was cancelled' })
  }

  #setUp (module: QuickJSWASMModule): QuickJSContext {
    const { limits, deadline } = this.#job
    const rt = this.#rt = module.newRuntime()
    rt.setMemoryLimit(limits.memoryBytes)
    rt.setMaxStackSize(effectiveStackBytes(limits.stackBytes))
    rt.setInterruptHandler(() => Atomics.load(this.#stop, 0) !== STOP_NONE || Date.now() > deadline)
    const ctx = this.#ctx = rt.newContext()
    const hostCall = ctx.newFunction('hostCall', (name, args) => this.#onCall(ctx, name, args))
    const hostLog = ctx.newFunction('hostLog', (line) => {
      if (ctx.typeof(line) === 'string') this.#logs.add(ctx.getString(line))
    })
    const names = ctx.newString(JSON.stringify(this.#job.toolNames))
    const maxLine = ctx.newNumber(limits.maxOutputBytes)
    const prelude = ctx.unwrapResult(ctx.evalCode(PRELUDE, 'prelude.js'))
    const helpers = ctx.callFunction(prelude, ctx.undefined, hostCall, hostLog, names, maxLine)
    for (const handle of [prelude, hostCall, hostLog, names, maxLine]) handle.dispose()
    const array = ctx.unwrapResult(helpers)
    this.#helpers = [0, 1, 2].map((index) => ctx.getProp(array, index))
    array.dispose()
    return ctx
  }

  #onCall (ctx: QuickJSContext, nameHandle: QuickJSHandle, argsHandle: QuickJSHandle): QuickJSHandle {
    if (ctx.typeof(nameHandle) !== 'string' || ctx.typeof(argsHandle) !== 'string') {
      return ctx.newString('a tool is called with its name and JSON arguments')
    }
    const name = ctx.getString(nameHandle)
    if (!this.#toolNames.has(name)) return ctx.newString(`no tool ${name}; tools in scope: ${toolsInScope(this.#job.toolNames)}`)
    const max = this.#job.limits.maxCalls
    if (this.#calls >= max) return ctx.newString(`code.maxCalls (${max}) reached: a script may make at most ${max} tool calls`)
    const callId = ++this.#calls
    this.#post({ type: 'call', runId: this.#job.runId, callId, name, argsJson: ctx.getString(argsHandle) })
    return ctx.newNumber(callId)
  }

  /** Runs the VM's pending jobs, then ends the run if the script's promise has settled. */
  #pump (): void {
    const ctx = this.#ctx
    const rt = this.#rt
    if (this.#ended || ctx === undefined || rt === undefined || this.#promise === undefined) return
    const jobs = rt.executePendingJobs()
    if (jobs.error !== undefined) {
      this.#endWith(jobs.error, false)
      return
    }
    const state = ctx.getPromiseState(this.#promise)
    if (state.type === 'fulfilled') {
      const ending = this.#result(ctx, state.value)
      state.value.dispose()
      this.#end(ending)
    } else if (state.type === 'rejected') {
      this.#endWith(state.error, false)
    } else {
      // A stop that came before the VM started waiting, when its interrupt handler had no chance to see it.
      const stopped = this.#stopFailure()
      if (stopped !== undefined) this.#end(stopped)
    }
  }

  #result (ctx: QuickJSContext, value: QuickJSHandle): Ending {
    const max = this.#job.limits.maxOutputBytes
    const limit = ctx.newNumber(max)
    const finished = ctx.callFunction(this.#helpers[1], ctx.undefined, value, limit)
    limit.dispose()
    if (finished.error !== undefined) {
      const failure = this.#failure(finished.error, false)
      finished.error.dispose()
      return failure
    }
    const answer = finished.value
    try {
      if (ctx.typeof(answer) === 'string') {
        const resultJson = ctx.getString(answer)
        const bytes = Buffer.byteLength(resultJson)
        if (bytes <= max) return { ok: true, resultJson }
        return { ok: false, kind: 'output', message: `the result is ${bytes} bytes of JSON, over code.maxOutputBytes (${max} bytes)` }
      }
      const tooLong = ctx.getProp(answer, 'tooLong')
      const reason = ctx.getProp(answer, 'reason')
      const length = ctx.typeof(tooLong) === 'number' ? ctx.getNumber(tooLong) : undefined
      const why = ctx.typeof(reason) === 'string' ? ctx.getString(reason) : 'unknown'
      tooLong.dispose()
      reason.dispose()
      if (length !== undefined) {
        return { ok: false, kind: 'output', message: `the result is at least ${length} bytes of JSON, over code.maxOutputBytes (${max} bytes)` }
      }
      return { ok: false, kind: 'not_json', message: `the result is not JSON-serialisable: ${why}` }
    } finally {
      answer.dispose()
    }
  }

  #stopFailure (): Failure | undefined {
    const flag = Atomics.load(this.#stop, 0)
    if (flag === STOP_CANCELLED) return { ok: false, kind: 'cancelled', message: 'the execution was cancelled' }
    if (flag === STOP_TIMEOUT || Date.now() > this.#job.deadline) {
      return { ok: false, kind: 'timeout', message: `the script ran past its deadline of ${this.#job.timeoutMs} ms` }
    }
    return undefined
  }

  /** Ends the run with what `thrown` means, and frees it. */
  #endWith (thrown: QuickJSHandle, compiling: boolean): void {
    const failure = this.#failure(thrown, compiling)
    thrown.dispose()
    this.#end(failure)
  }

  /** What a thrown value (or an engine error) means; disposes nothing, the caller owns `thrown`. */
  #failure (thrown: QuickJSHandle, compiling: boolean): Failure {
    const stopped = this.#stopFailure()
    if (stopped !== undefined) return stopped
    const ctx = this.#ctx as QuickJSContext
    const described = ctx.callFunction(this.#helpers[2], ctx.undefined, thrown)
    if (described.error !== undefined) {
      described.error.dispose()
      // describe() fails only when the VM cannot even allocate a few strings.
      this.#tainted = true
      return this.#memoryFailure()
    }
    const json = ctx.getString(described.value)
    described.value.dispose()
    return this.#classify(json, compiling)
  }

  #classify (json: string, compiling: boolean): Failure {
    const { code, toolNames } = this.#job
    const thrown = readDescription(json)
    if (thrown.isError && thrown.name === 'InternalError') {
      if (/out of memory|string too long/.test(thrown.message)) return this.#memoryFailure()
    }
    // QuickJS says so as an InternalError, or as a SyntaxError from JSON.parse of deeply nested text.
    if (thrown.isError && thrown.message === 'stack overflow') return this.#stackFailure()
    if (compiling && thrown.isError && thrown.name === 'SyntaxError') {
      return { ok: false, kind: 'syntax', message: syntaxMessage(thrown.name, thrown.message, thrown.stack, code) }
    }
    // Out of memory, QuickJS may have no room left for an error object and throws null instead.
    if (!thrown.isError && thrown.shown === 'null' && this.#memoryExhausted()) return this.#memoryFailure()
    return { ok: false, kind: 'runtime', message: thrownMessage(thrown, code, toolNames) }
  }

  #stackFailure (): Failure {
    return { ok: false, kind: 'stack', message: `the script overflowed its stack of ${effectiveStackBytes(this.#job.limits.stackBytes)} bytes (unbounded recursion?)` }
  }

  #memoryExhausted (): boolean {
    const memory = this.#module?.getWasmMemory().buffer.byteLength ?? 0
    return memory + MEMORY_HEADROOM_BYTES / 2 >= memoryCeiling(this.#job.limits.memoryBytes)
  }

  #memoryFailure (): Failure {
    this.#tainted = true
    const mb = Math.round(this.#job.limits.memoryBytes / 2 ** 20 * 10) / 10
    return { ok: false, kind: 'memory', message: `the script ran out of memory (its limit is ${mb} MB, code.memoryMb)` }
  }

  #end (ending: Ending): void {
    if (this.#ended) return
    this.#ended = true
    const outcome: WorkerOutcome = ending.ok
      ? { ok: true, resultJson: ending.resultJson, logs: this.#logs.finish(Buffer.byteLength(ending.resultJson)) }
      : { ok: false, kind: ending.kind, message: ending.message, logs: this.#logs.finish(0) }
    this.#post({ type: 'done', runId: this.#job.runId, outcome })
    this.#dispose()
    this.#onEnd(this.#tainted)
  }

  #dispose (): void {
    // A tainted module is dropped whole; freeing a runtime left half-way can abort inside QuickJS.
    if (this.#tainted) return
    try {
      for (const handle of this.#helpers) handle.dispose()
      this.#promise?.dispose()
      this.#ctx?.dispose()
      this.#rt?.dispose()
    } catch {
      // A runtime that cannot be freed cleanly leaves its module in an unknown state.
      this.#tainted = true
    }
  }
}
