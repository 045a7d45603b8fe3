// Runs web_extract's HTML → markdown conversion (and the formatting of large JSON and text bodies)
// in worker threads. Parsing and converting a page is synchronous work whose cost grows with the
// markup (a deeply nested page took over a minute): on the main thread it froze every other call and
// /healthz, and no deadline could fire until it was done. In a worker the event loop stays free, and
// the call's signal terminates the worker mid-page. piscina, like the workers, loads with the first
// page: a gateway that never converts one does not pay for it.
import { availableParallelism } from 'node:os'
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Piscina } from 'piscina'
import type { HtmlExtract } from './html.ts'
import type { TextKind } from './content.ts'
import type { ConversionTask, FormatTask } from './html-worker.ts'

// html-worker.ts next to this file when run from the sources (Node strips the types in workers
// too), html-worker.js in the compiled build: the same extension as this module's own.
const WORKER_FILE = fileURLToPath(new URL(`./html-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url))
/** A worker left idle this long is closed; the next page starts a fresh one. */
const IDLE_MS = 30_000
/** Heap of one worker: a page's DOM fits many times over; a runaway one stops there, alone. */
const WORKER_HEAP_MB = 512
/**
 * Most time one page may take, waiting for a worker included. Real pages convert in well under 2 s;
 * a hostile one (parsing deep nesting grows with the square of the depth) fails alone with this,
 * and the call's other pages still come back, instead of the whole call running into its deadline.
 */
export const CONVERSION_BUDGET_MS = 15_000

/** The conversion did not finish because the call was stopped (deadline, caller gone, shutdown). */
export class ConversionStoppedError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'ConversionStoppedError'
  }
}

function stoppedBy (reason: unknown): ConversionStoppedError {
  return new ConversionStoppedError(`the conversion of the page was stopped: ${reason instanceof Error ? reason.message : 'the call was cancelled'}`)
}

export interface ConverterOptions {
  /** Default: two threads at most, so that conversions queue rather than take every core from the gateway. */
  maxThreads?: number
  /** Default CONVERSION_BUDGET_MS. */
  budgetMs?: number
}

type Pool = Piscina<ConversionTask | FormatTask, HtmlExtract | string>

/** A small pool of conversion workers, started on first use; close() at shutdown. */
export class HtmlConverter {
  readonly #maxThreads: number
  readonly #budgetMs: number
  /** Set once piscina has loaded and the pool exists. */
  #pool: Pool | undefined
  #starting: Promise<Pool> | undefined
  #closed = false

  constructor (options: ConverterOptions = {}) {
    this.#maxThreads = options.maxThreads ?? Math.min(2, availableParallelism())
    this.#budgetMs = options.budgetMs ?? CONVERSION_BUDGET_MS
  }

  /** Worker threads alive now (busy or idle). */
  get threads (): number {
    return this.#pool?.threads.length ?? 0
  }

  /**
   * Converts one HTML page. `signal` firing, or the budget running out, terminates its worker (or
   * takes the page out of the queue) and rejects with ConversionStoppedError.
   */
  async convert (task: ConversionTask, signal: AbortSignal): Promise<HtmlExtract> {
    return await this.#run(task, 'default', signal) as HtmlExtract
  }

  /** Pretty-prints JSON or tidies text, as convert() does HTML: for bodies too large to do inline. */
  async format (text: string, kind: TextKind, signal: AbortSignal): Promise<string> {
    return await this.#run({ text, kind }, 'formatPage', signal) as string
  }

  async #run (task: ConversionTask | FormatTask, name: string, signal: AbortSignal): Promise<HtmlExtract | string> {
    if (this.#closed) throw stoppedBy(new Error('the gateway is shutting down'))
    if (signal.aborted) throw stoppedBy(signal.reason)
    const budget = AbortSignal.timeout(this.#budgetMs)
    try {
      const pool = await this.#started()
      if (this.#closed) throw stoppedBy(new Error('the gateway is shutting down'))
      return await pool.run(task, { name, signal: AbortSignal.any([signal, budget]) })
    } catch (err) {
      if (this.#closed) throw stoppedBy(new Error('the gateway is shutting down'))
      if (signal.aborted) throw stoppedBy(signal.reason)
      if (budget.aborted) {
        throw new ConversionStoppedError(`the page took longer than ${this.#budgetMs} ms to convert and was given up: its content is too complex (nested thousands of levels deep, say)`)
      }
      throw err
    }
  }

  async close (): Promise<void> {
    this.#closed = true
    const starting = this.#starting
    this.#starting = undefined
    this.#pool = undefined
    // destroy terminates the workers: a conversion still running at shutdown is abandoned, not waited for.
    await (await starting?.catch(() => undefined))?.destroy()
  }

  #started (): Promise<Pool> {
    this.#starting ??= import('piscina').then(({ Piscina }) => {
      this.#pool = new Piscina({
        filename: WORKER_FILE,
        minThreads: 0,
        maxThreads: this.#maxThreads,
        idleTimeout: IDLE_MS,
        // None of the gateway's own flags (an --inspect port, say) is inherited.
        execArgv: [],
        resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB }
      })
      return this.#pool
    })
    return this.#starting
  }
}
