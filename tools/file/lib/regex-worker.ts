// Runs the regular expression of a content search in a worker thread. A pathological pattern
// (catastrophic backtracking) blocks whatever thread runs it, and no timer can interrupt synchronous
// code; in a worker, the search thread stays free and kills the worker at the deadline.
import { Worker } from 'node:worker_threads'

export interface FileMatches {
  /** 0-based indexes of matching lines, at most the requested cap. */
  lines: number[]
  /** All matching lines of the file (up to where a stop came). */
  count: number
  /** The worker stopped on its own at the deadline, between lines. */
  timedOut: boolean
}

// Plain JavaScript evaluated in the worker: the same source serves the TypeScript sources and the
// compiled build, with no module file to locate. It splits a text into lines and tests each, checking the deadline every 256.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const regex = new RegExp(workerData.source, workerData.flags)
parentPort.on('message', (job) => {
  const text = job.text
  const lines = []
  let count = 0
  let index = 0
  let start = 0
  let timedOut = false
  while (start < text.length) {
    let end = text.indexOf('\\n', start)
    if (end === -1) end = text.length
    let line = text.slice(start, end)
    if (line.endsWith('\\r')) line = line.slice(0, -1)
    if (regex.test(line)) {
      count += 1
      if (lines.length < job.cap) lines.push(index)
      if (job.firstOnly) break
    }
    index += 1
    start = end + 1
    if ((index & 255) === 0 && Date.now() > job.deadline) { timedOut = true; break }
  }
  parentPort.postMessage({ id: job.id, lines, count, timedOut })
})
`

export type MatchOutcome = FileMatches | { killed: 'deadline' | 'aborted' }

/** One worker for one search; `close()` always, it terminates the thread. */
export class RegexMatcher {
  readonly #worker: Worker
  #nextId = 0
  #closed = false
  #failure: Error | undefined

  constructor (source: string, flags = '') {
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { source, flags },
      // None of the gateway's own flags (an --inspect port, say) is inherited; a memory cap keeps a runaway pattern contained.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: 256 },
      stdout: true,
      stderr: true
    })
    this.#worker.on('error', (error) => { this.#failure = error })
    this.#worker.unref()
  }

  /**
   * Matching lines of `text`. Past `deadline` (epoch ms) the worker stops between lines; if one line
   * holds it longer (`graceMs` more), or `signal` fires, the worker is killed and the matcher is spent.
   */
  match (text: string, options: { cap: number, firstOnly: boolean, deadline: number, graceMs: number, signal?: AbortSignal }): Promise<MatchOutcome> {
    if (this.#closed) return Promise.reject(new Error('the regex worker is closed'))
    const id = this.#nextId++
    return new Promise<MatchOutcome>((resolve, reject) => {
      const worker = this.#worker
      const finish = (outcome: MatchOutcome | Error): void => {
        clearTimeout(timer)
        worker.off('message', onMessage)
        worker.off('error', onError)
        worker.off('exit', onExit)
        options.signal?.removeEventListener('abort', onAbort)
        if (outcome instanceof Error) reject(outcome)
        else resolve(outcome)
      }
      const kill = (why: 'deadline' | 'aborted'): void => {
        this.close().catch(() => {})
        finish({ killed: why })
      }
      const onMessage = (reply: FileMatches & { id: number }): void => {
        if (reply.id === id) finish({ lines: reply.lines, count: reply.count, timedOut: reply.timedOut })
      }
      const onError = (error: Error): void => finish(new Error(`the regular expression worker failed: ${error.message}`))
      const onExit = (): void => finish(this.#failure ?? new Error('the regular expression worker stopped unexpectedly'))
      const onAbort = (): void => kill('aborted')
      const timer = setTimeout(() => kill('deadline'), Math.max(0, options.deadline - Date.now()) + options.graceMs)
      worker.on('message', onMessage)
      worker.on('error', onError)
      worker.on('exit', onExit)
      if (options.signal?.aborted === true) return kill('aborted')
      options.signal?.addEventListener('abort', onAbort, { once: true })
      worker.postMessage({ id, text, cap: options.cap, firstOnly: options.firstOnly, deadline: options.deadline })
    })
  }

  async close (): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    await this.#worker.terminate()
  }
}
