// Types for the part of autocannon 9 the benchmark uses: the package ships none.
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'
  namespace autocannon {
    interface Options {
      url: string
      method?: string
      headers?: Record<string, string>
      body?: string
      /** Replace `[<id>]` in the body by a fresh id per request. */
      idReplacement?: boolean
      connections?: number
      pipelining?: number
      /** Seconds. */
      duration?: number
      warmup?: { duration: number, connections?: number }
      /** Called before each request is sent: what it answers is sent (a fresh header per request). */
      requests?: Array<{ setupRequest?: (request: { headers?: Record<string, string> }) => { headers?: Record<string, string> } }>
    }
    interface Histogram {
      mean: number
      stddev: number
      min: number
      max: number
      p50: number
      p90: number
      p99: number
    }
    interface Result {
      requests: Histogram
      latency: Histogram
      throughput: Histogram
      totalRequests: number
      errors: number
      timeouts: number
      non2xx: number
      '2xx': number
      '3xx': number
      statusCodeStats: Record<string, { count: number }>
      duration: number
    }
    /** The run: a promise of its result that also emits 'response' (client, status, bytes, ms) per answer. */
    interface Instance extends EventEmitter, PromiseLike<Result> {}
  }
  function autocannon (options: autocannon.Options): autocannon.Instance
  export = autocannon
}
