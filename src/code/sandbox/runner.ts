// The warm pool: worker threads started once (on the first run, or by start()) that each run one
// execution at a time in a fresh QuickJS runtime. Starting a worker per execution stalled the main
// event loop by 100–230 ms with eight at once; warm workers keep it to a few milliseconds. A worker
// that crashes, or does not stop within the grace after a deadline, is terminated and replaced.
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { Execution, timeoutMessage } from './execution.ts'
import { WORKER_STACK_MB } from './wasm-module.ts'
import type { FromWorker, RunScriptOptions, ScriptFailureKind, ScriptOutcome } from './types.ts'

// The worker runs worker.ts from the sources (Node strips its types) and worker.js once compiled.
const WORKER_URL = new URL(`./worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url)
const DEFAULT_MAX_QUEUED = 1_000

/** For tests: a method of ScriptRunner that terminates one worker as a crash would (not exported by index.ts). */
export const TERMINATE_WORKER = Symbol('terminate a sandbox worker')

interface Slot {
  worker: Worker
  execution: Execution | undefined
  ready: Promise<void>
  isReady: boolean
}

interface Queued {
  options: RunScriptOptions
  deadline: number
  resolve: (outcome: ScriptOutcome) => void
  timer: NodeJS.Timeout
  onAbort: () => void
}

function failed (kind: ScriptFailureKind, message: string): ScriptOutcome {
  return { ok: false, kind, message, logs: [], calls: 0 }
}

export class ScriptRunner {
  readonly #size: number
  readonly #maxQueued: number
  readonly #slots: Slot[] = []
  readonly #queue: Queued[] = []
  #nextRunId = 1
  #closed = false

  constructor (options: { workers: number, maxQueued?: number }) {
    if (!Number.isInteger(options.workers) || options.workers < 1) throw new Error(`workers must be a positive integer, not ${options.workers}`)
    this.#size = options.workers
    this.#maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED
  }

  get stats (): { workers: number, busy: number, queued: number } {
    return { workers: this.#slots.length, busy: this.#slots.filter((slot) => slot.execution !== undefined).length, queued: this.#queue.length }
  }

  /** Starts the workers now rather than on the first run; resolves when each has QuickJS compiled. */
  async start (): Promise<void> {
    this.#ensureStarted()
    await Promise.all(this.#slots.map(async (slot) => await slot.ready))
  }

  run (options: RunScriptOptions): Promise<ScriptOutcome> {
    return new Promise((resolve) => {
      if (this.#closed) return resolve(failed('internal', 'the sandbox is closed'))
      if (options.signal?.aborted === true) return resolve(failed('cancelled', 'the execution was cancelled'))
      this.#ensureStarted()
      const deadline = Date.now() + options.timeoutMs
      const idle = this.#slots.find((slot) => slot.execution === undefined)
      if (idle !== undefined) return this.#assign(idle, options, deadline, resolve)
      if (this.#queue.length >= this.#maxQueued) {
        return resolve(failed('internal', `the sandbox is busy: ${this.#queue.length} executions are already waiting for a worker`))
      }
      this.#enqueue(options, deadline, resolve)
    })
  }

  async close (): Promise<void> {
    this.#closed = true
    for (const queued of this.#queue.splice(0)) this.#unqueue(queued, failed('cancelled', 'the sandbox closed'))
    const slots = this.#slots.splice(0)
    for (const slot of slots) {
      const execution = slot.execution
      slot.execution = undefined
      execution?.abandon({ kind: 'cancelled', message: 'the sandbox closed' })
    }
    await Promise.all(slots.map(async (slot) => await slot.worker.terminate()))
  }

  async [TERMINATE_WORKER] (index: number): Promise<void> {
    await this.#slots[index]?.worker.terminate()
  }

  #ensureStarted (): void {
    while (this.#slots.length < this.#size) this.#slots.push(this.#spawn())
  }

  #spawn (slot?: Slot): Slot {
    const worker = new Worker(WORKER_URL, { resourceLimits: { stackSizeMb: WORKER_STACK_MB } })
    // An idle pool holds no process open; a running execution's deadline timer does.
    worker.unref()
    let markReady = (): void => {}
    const ready = new Promise<void>((resolve) => { markReady = resolve })
    const target = slot ?? { worker, execution: undefined, ready, isReady: false }
    target.worker = worker
    target.ready = ready
    target.isReady = false
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'ready') {
        target.isReady = true
        markReady()
      } else if (target.worker === worker && target.execution?.runId === message.runId) target.execution.onMessage(message)
    })
    worker.on('error', (error) => this.#lost(target, worker, `the sandbox worker failed: ${error.message}`))
    worker.on('exit', (code) => {
      markReady() // start() waits for no worker that is gone
      this.#lost(target, worker, `the sandbox worker exited (code ${code})`)
    })
    return target
  }

  /** The slot's worker crashed, exited or hung: its run ends, and a fresh worker takes its place. */
  #lost (slot: Slot, worker: Worker, reason: string): void {
    if (slot.worker !== worker || !this.#slots.includes(slot)) return
    const execution = slot.execution
    slot.execution = undefined
    if (slot.isReady) {
      this.#spawn(slot)
    } else {
      // A worker that dies before it is ready would die again at once: the next run starts one.
      this.#slots.splice(this.#slots.indexOf(slot), 1)
    }
    worker.terminate().catch(() => {})
    execution?.abandon({ kind: 'internal', message: reason })
  }

  #assign (slot: Slot, options: RunScriptOptions, deadline: number, resolve: (outcome: ScriptOutcome) => void): void {
    const execution: Execution = new Execution(this.#nextRunId++, options, deadline, {
      post: (message) => slot.worker.postMessage(message),
      hung: () => this.#lost(slot, slot.worker, 'the sandbox worker did not stop'),
      settled: (outcome) => {
        if (slot.execution === execution) slot.execution = undefined
        resolve(outcome)
        this.#drain()
      }
    })
    slot.execution = execution
    execution.begin()
  }

  #drain (): void {
    for (const slot of this.#slots) {
      if (slot.execution !== undefined) continue
      const next = this.#queue.shift()
      if (next === undefined) return
      clearTimeout(next.timer)
      next.options.signal?.removeEventListener('abort', next.onAbort)
      this.#assign(slot, next.options, next.deadline, next.resolve)
    }
  }

  #enqueue (options: RunScriptOptions, deadline: number, resolve: (outcome: ScriptOutcome) => void): void {
    const queued: Queued = {
      options,
      deadline,
      resolve,
      timer: setTimeout(() => this.#unqueue(queued, failed('timeout', `${timeoutMessage(options.timeoutMs)} (waiting for a free sandbox worker)`)), options.timeoutMs),
      onAbort: () => this.#unqueue(queued, failed('cancelled', 'the execution was cancelled'))
    }
    options.signal?.addEventListener('abort', queued.onAbort, { once: true })
    this.#queue.push(queued)
  }

  #unqueue (queued: Queued, outcome: ScriptOutcome): void {
    const index = this.#queue.indexOf(queued)
    if (index !== -1) this.#queue.splice(index, 1)
    clearTimeout(queued.timer)
    queued.options.signal?.removeEventListener('abort', queued.onAbort)
    queued.resolve(outcome)
  }
}
