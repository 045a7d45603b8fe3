// Runs the regular expressions of a search in a worker thread: the content pattern over lines, and
// the globs (compiled by picomatch to regular expressions) over paths. A pathological pattern
// (catastrophic backtracking, e.g. a glob of many `*` against a long name) blocks whatever thread
// runs it, and no timer can interrupt synchronous code; in a worker, the gateway's thread stays
// free and kills the worker at the deadline.
import { Worker } from 'node:worker_threads'

export interface FileMatches {
  /** 0-based indexes of matching lines, at most the requested cap. */
  lines: number[]
  /** All matching lines of the file (up to where a stop came). */
  count: number
  /** The worker stopped on its own at the deadline, between lines. */
  timedOut: boolean
}

export interface PathMatches {
  /** One per path tested, in order: whether every glob matches it; shorter than the paths when timed out. */
  hits: boolean[]
  timedOut: boolean
}

/** A glob as picomatch compiles it; matched as picomatch does (the glob itself, or the regex on the path or its base name). */
export interface GlobSpec { glob: string, source: string, flags: string, basename: boolean }

// Plain JavaScript evaluated in the worker: the same source serves the TypeScript sources and the
// compiled build, with no module file to locate. Lines: splits a text and tests each, checking the
// deadline every 256. Paths: tests each path against every glob, checking the deadline every 16.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const regex = workerData.source === undefined ? undefined : new RegExp(workerData.source, workerData.flags)
const globs = workerData.globs.map((g) => ({ glob: g.glob, basename: g.basename, regex: new RegExp(g.source, g.flags) }))
const globMatches = (g, path) => path === g.glob || g.regex.test(g.basename ? path.slice(path.lastIndexOf('/') + 1) : path)
function matchPaths (job) {
  const hits = []
  for (const path of job.paths) {
    if ((hits.length & 15) === 15 && Date.now() > job.deadline) return { id: job.id, hits, timedOut: true }
    hits.push(globs.every((g) => globMatches(g, path)))
  }
  return { id: job.id, hits, timedOut: false }
}
function matchLines (job) {
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
  return { id: job.id, lines, count, timedOut }
}
parentPort.on('message', (job) => parentPort.postMessage(job.paths === undefined ? matchLines(job) : matchPaths(job)))
`

export type Killed = { killed: 'deadline' | 'aborted' }
export type MatchOutcome = FileMatches | Killed

const isKilled = (reply: Record<string, unknown> | Killed): reply is Killed => 'killed' in reply

interface Bounds { deadline: number, graceMs: number, signal?: AbortSignal }

/** One worker for one search; `close()` always, it terminates the thread. */
export class RegexMatcher {
  readonly #worker: Worker
  #nextId = 0
  #closed = false
  #failure: Error | undefined

  /** `source` (may be undefined when only globs are matched) is the content pattern. */
  constructor (source: string | undefined, flags = '', globs: GlobSpec[] = []) {
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { source, flags, globs },
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
  async match (text: string, options: Bounds & { cap: number, firstOnly: boolean }): Promise<MatchOutcome> {
    const reply = await this.#run({ text, cap: options.cap, firstOnly: options.firstOnly, deadline: options.deadline }, options)
    return isKilled(reply) ? reply : { lines: reply.lines as number[], count: reply.count as number, timedOut: reply.timedOut as boolean }
  }

  /** Which `paths` every glob matches; bounded like `match`, one path at a time. */
  async matchPaths (paths: string[], options: Bounds): Promise<PathMatches | Killed> {
    const reply = await this.#run({ paths, deadline: options.deadline }, options)
    return isKilled(reply) ? reply : { hits: reply.hits as boolean[], timedOut: reply.timedOut as boolean }
  }

  #run (job: Record<string, unknown>, options: Bounds): Promise<Record<string, unknown> | Killed> {
    if (this.#closed) return Promise.reject(new Error('the regex worker is closed'))
    const id = this.#nextId++
    return new Promise((resolve, reject) => {
      const worker = this.#worker
      const finish = (outcome: Record<string, unknown> | Killed | Error): void => {
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
      const onMessage = (reply: Record<string, unknown>): void => { if (reply.id === id) finish(reply) }
      const onError = (error: Error): void => finish(new Error(`the regular expression worker failed: ${error.message}`))
      const onExit = (): void => finish(this.#failure ?? new Error('the regular expression worker stopped unexpectedly'))
      const onAbort = (): void => kill('aborted')
      const timer = setTimeout(() => kill('deadline'), Math.max(0, options.deadline - Date.now()) + options.graceMs)
      worker.on('message', onMessage)
      worker.on('error', onError)
      worker.on('exit', onExit)
      if (options.signal?.aborted === true) return kill('aborted')
      options.signal?.addEventListener('abort', onAbort, { once: true })
      worker.postMessage({ ...job, id })
    })
  }

  async close (): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    await this.#worker.terminate()
  }
}
