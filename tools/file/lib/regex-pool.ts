// The threads that run the regular expressions of searches (regex-thread.ts says why a thread).
// Starting one costs a V8 isolate and a Node bootstrap, more than matching the files of a whole
// search; so threads are kept and reused.
//
// One job (a batch of texts or paths with its pattern) has a thread to itself while it runs: a job
// never waits behind another search's, and a thread is never shared by two jobs, so killing it at a
// job's deadline touches nothing else. When no thread is idle a new one is started (as many as jobs
// run at once, as before the pool); once done, a thread waits for the next job, up to MAX_IDLE of
// them for IDLE_MS each, then ends. A killed or failed thread is dropped and never reused. Idle
// threads are unref'd: they never keep the process alive.
import { Worker } from 'node:worker_threads'
import { WORKER_SOURCE, type PathsJob, type PathsReply, type TextsJob, type TextsReply } from './regex-thread.ts'

/** Threads kept waiting for jobs: enough for the searches a busy gateway runs at once. */
export const MAX_IDLE = 4
/** How long an idle thread waits for a job before it ends. */
export const IDLE_MS = 30_000

interface Thread {
  worker: Worker
  /** Set by the thread before each text of a job: which one it is matching, read when it is killed. */
  at: Int32Array
  /** Ended, or failed (and so about to end): never given a job again. */
  gone: boolean
  failure: Error | undefined
  idleTimer: NodeJS.Timeout | undefined
}

const idle: Thread[] = []
let started = 0

function start (): Thread {
  const at = new Int32Array(new SharedArrayBuffer(4))
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { at },
    // None of the gateway's own flags (an --inspect port, say) is inherited; a memory cap keeps a runaway pattern contained.
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: 256 },
    stdout: true,
    stderr: true
  })
  const thread: Thread = { worker, at, gone: false, failure: undefined, idleTimer: undefined }
  worker.on('error', (error) => {
    thread.gone = true
    thread.failure = error
  })
  worker.on('exit', () => {
    thread.gone = true
    forget(thread)
  })
  worker.unref()
  started += 1
  return thread
}

function forget (thread: Thread): void {
  clearTimeout(thread.idleTimer)
  const index = idle.indexOf(thread)
  if (index !== -1) idle.splice(index, 1)
}

function take (): Thread {
  const thread = idle.pop()
  if (thread === undefined) return start()
  clearTimeout(thread.idleTimer)
  return thread
}

function giveBack (thread: Thread): void {
  if (thread.gone || idle.length >= MAX_IDLE) {
    end(thread)
    return
  }
  thread.idleTimer = setTimeout(() => end(thread), IDLE_MS).unref()
  idle.push(thread)
}

function end (thread: Thread): void {
  thread.gone = true
  forget(thread)
  thread.worker.terminate().catch(() => {})
}

/** How a job ended when its thread had to be killed; `at` is the index of the text being matched then. */
export interface Killed { killed: 'deadline' | 'aborted', at: number | undefined }

export interface Bounds {
  /** Epoch ms; the job itself stops between lines past it, the thread is killed `graceMs` later. */
  deadline: number
  graceMs: number
  signal?: AbortSignal
}

/**
 * Runs `job` on a thread of its own and answers its reply, or how it was killed: past the deadline
 * and grace, or when `signal` fires. Rejects when the thread fails (out of memory, say).
 */
function runJob<Reply> (job: Record<string, unknown>, bounds: Bounds): Promise<Reply | Killed> {
  if (bounds.signal?.aborted === true) return Promise.resolve({ killed: 'aborted', at: undefined })
  const thread = take()
  const { worker } = thread
  return new Promise((resolve, reject) => {
    const finish = (): void => {
      clearTimeout(timer)
      worker.off('message', onMessage)
      worker.off('exit', onExit)
      bounds.signal?.removeEventListener('abort', onAbort)
    }
    const kill = (why: Killed['killed']): void => {
      finish()
      const at = Atomics.load(thread.at, 0)
      end(thread)
      resolve({ killed: why, at: at < 0 ? undefined : at })
    }
    const onMessage = (reply: Reply): void => {
      finish()
      giveBack(thread)
      resolve(reply)
    }
    const onExit = (): void => {
      finish()
      reject(new Error(`the regular expression worker ${thread.failure === undefined ? 'stopped unexpectedly' : `failed: ${thread.failure.message}`}`))
    }
    const onAbort = (): void => kill('aborted')
    const timer = setTimeout(() => kill('deadline'), Math.max(0, bounds.deadline - Date.now()) + bounds.graceMs)
    worker.on('message', onMessage)
    worker.on('exit', onExit)
    bounds.signal?.addEventListener('abort', onAbort, { once: true })
    Atomics.store(thread.at, 0, -1)
    worker.postMessage(job)
  })
}

/** The matches of a batch of file texts (see regex-thread.ts). */
export function matchTexts (job: Omit<TextsJob, 'kind'>, bounds: Bounds): Promise<TextsReply | Killed> {
  return runJob<TextsReply>({ kind: 'texts', ...job }, bounds)
}

/** Which paths every glob matches (see regex-thread.ts). */
export function matchPaths (job: Omit<PathsJob, 'kind'>, bounds: Bounds): Promise<PathsReply | Killed> {
  return runJob<PathsReply>({ kind: 'paths', ...job }, bounds)
}

/** For tests: threads started since the process began, and those idle now. */
export function poolStats (): { started: number, idle: number } {
  return { started, idle: idle.length }
}
