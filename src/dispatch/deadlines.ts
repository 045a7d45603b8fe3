// Deadlines of tool calls on one shared timer. A setTimeout/clearTimeout pair per call showed under
// load (bench/README.md): when the last timer of a duration is cleared, Node drops its timer list
// and the next call builds it again and re-arms libuv. Here calls with the same
// duration queue in deadline order, and the one timer is re-armed only when an earlier deadline
// arrives or when it fires; a finished call just leaves its queue.

import { MAX_TIMER_MS } from '../timers.ts'

/** How many durations keep their queue while empty. */
const KEPT_EMPTY_QUEUES = 16

export interface Deadline {
  /** Forgets the deadline (the call ended first). Safe to call more than once. */
  cancel: () => void
}

interface Entry extends Deadline {
  at: number
  expire: () => void
  prev: Entry | undefined
  next: Entry | undefined
  queue: Queue | undefined
}

/** Deadlines of one duration: they arrive in deadline order, so a FIFO keeps them sorted. */
interface Queue {
  ms: number
  head: Entry | undefined
  tail: Entry | undefined
}

export class DeadlineTimer {
  readonly #now: () => number
  readonly #queues = new Map<number, Queue>()
  #pending = 0
  #timer: ReturnType<typeof setTimeout> | undefined = undefined
  /** The deadline the timer is armed for; Infinity when not armed. */
  #armedFor = Number.POSITIVE_INFINITY

  constructor (now: () => number = () => performance.now()) {
    this.#now = now
  }

  /** Calls `expire` once, `ms` from now, unless cancelled first. */
  schedule (ms: number, expire: () => void): Deadline {
    const delay = Math.min(Math.max(ms, 1), MAX_TIMER_MS)
    let queue = this.#queues.get(delay)
    if (queue === undefined) {
      queue = { ms: delay, head: undefined, tail: undefined }
      this.#queues.set(delay, queue)
    }
    const entry: Entry = {
      at: this.#now() + delay,
      expire,
      prev: queue.tail,
      next: undefined,
      queue,
      cancel: () => this.#remove(entry)
    }
    if (queue.tail === undefined) queue.head = entry
    else queue.tail.next = entry
    queue.tail = entry
    // A pending deadline keeps the process alive, as the call's own timer would.
    if (this.#pending++ === 0) this.#timer?.ref()
    if (entry.at < this.#armedFor) this.#arm(entry.at)
    return entry
  }

  /** Deadlines not yet expired nor cancelled. */
  get pending (): number {
    return this.#pending
  }

  #remove (entry: Entry): void {
    const queue = entry.queue
    if (queue === undefined) return
    entry.queue = undefined
    if (entry.prev === undefined) queue.head = entry.next
    else entry.prev.next = entry.next
    if (entry.next === undefined) queue.tail = entry.prev
    else entry.next.prev = entry.prev
    entry.prev = entry.next = undefined
    // An empty queue is kept for the next call of its duration, unless there are many: per-call
    // durations (X-Tool-Timeout-Ms) are unbounded in number.
    if (queue.head === undefined && this.#queues.size > KEPT_EMPTY_QUEUES) this.#queues.delete(queue.ms)
    // The timer stays armed (re-arming is the cost this class avoids) but no longer holds the process.
    if (--this.#pending === 0) this.#timer?.unref()
  }

  #arm (at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#armedFor = at
    this.#timer = setTimeout(() => this.#fire(), Math.min(Math.max(Math.ceil(at - this.#now()), 1), MAX_TIMER_MS))
    if (this.#pending === 0) this.#timer.unref()
  }

  #fire (): void {
    // The timer firing means its deadline has come, even if the clock reads a hair earlier (libuv
    // rounds to ms); deadlines within the timer's 1 ms resolution after it are due as well.
    const now = Math.max(this.#now(), this.#armedFor) + 1
    this.#timer = undefined
    this.#armedFor = Number.POSITIVE_INFINITY
    const expired: Entry[] = []
    let earliest = Number.POSITIVE_INFINITY
    for (const queue of this.#queues.values()) {
      while (queue.head !== undefined && queue.head.at <= now) {
        expired.push(queue.head)
        this.#remove(queue.head)
      }
      if (queue.head !== undefined && queue.head.at < earliest) earliest = queue.head.at
    }
    if (earliest !== Number.POSITIVE_INFINITY) this.#arm(earliest)
    for (const entry of expired) {
      // One throwing callback must not keep the others from expiring; it still surfaces as uncaught,
      // as it would from a timer of its own.
      try {
        entry.expire()
      } catch (err) {
        queueMicrotask(() => { throw err })
      }
    }
  }
}
