// A value that arrives later, whose continuations run synchronously as soon as it does. With
// promises every wrapping step (truncation, hooks), the dispatcher and the route each added a
// microtask hop to a call once the handler answered (bench/README.md has the cost); with this,
// the handler's answer flows through them in one go. It is a thenable, so `await` works.
import type { StepResult } from './outcome.ts'

type Output<T> = T | Promise<T> | Pending<T>

/** Who waits: callbacks (subscribe), or another Pending to settle from a mapping (map). */
interface Waiter<T> {
  onResult?: (result: T) => void
  onError?: (error: unknown) => void
  after?: (result: T) => Output<unknown>
  recover?: (error: unknown) => Output<unknown>
  target?: Pending<unknown>
}

const PENDING = 0
const FULFILLED = 1
const REJECTED = 2

export class Pending<T = StepResult> implements PromiseLike<T> {
  #state = PENDING
  #value: unknown = undefined
  // One waiter is the usual case (each step wraps the next once): no array for it.
  #first: Waiter<T> | undefined = undefined
  #more: Array<Waiter<T>> | undefined = undefined

  /** `output` as a Pending: itself when it is one. */
  static of<T> (output: Output<T>): Pending<T> {
    if (output instanceof Pending) return output
    const pending = new Pending<T>()
    pending.resolve(output)
    return pending
  }

  /** Settles with `output`: a result at once, or whatever a promise or another Pending settles with. */
  resolve (output: Output<T>): void {
    if (this.#state !== PENDING) return
    if (output instanceof Pending) output.subscribe((result) => this.#settle(FULFILLED, result), (error) => this.#settle(REJECTED, error))
    else if (output instanceof Promise) output.then((result) => this.#settle(FULFILLED, result), (error: unknown) => this.#settle(REJECTED, error))
    else this.#settle(FULFILLED, output)
  }

  reject (error: unknown): void {
    this.#settle(REJECTED, error)
  }

  /** Runs one of the callbacks when settled, synchronously (at once if it already is). */
  subscribe (onResult: (result: T) => void, onError: (error: unknown) => void): void {
    this.#wait({ onResult, onError })
  }

  /** A Pending of `after(result)` (or of `recover(error)` when given); a throw in either rejects it. */
  map<U> (after: (result: T) => Output<U>, recover?: (error: unknown) => Output<U>): Pending<U> {
    const target = new Pending<U>()
    this.#wait({ after, recover, target: target as Pending<unknown> })
    return target
  }

  then<T1 = T, T2 = never> (
    onFulfilled?: ((result: T) => T1 | PromiseLike<T1>) | null,
    onRejected?: ((error: unknown) => T2 | PromiseLike<T2>) | null
  ): Promise<T1 | T2> {
    return new Promise<T>((resolve, reject) => this.subscribe(resolve, reject)).then(onFulfilled, onRejected)
  }

  #wait (waiter: Waiter<T>): void {
    if (this.#state !== PENDING) this.#run(waiter)
    else if (this.#first === undefined) this.#first = waiter
    else (this.#more ??= []).push(waiter)
  }

  #settle (state: typeof FULFILLED | typeof REJECTED, value: unknown): void {
    if (this.#state !== PENDING) return
    this.#state = state
    this.#value = value
    const first = this.#first
    const more = this.#more
    this.#first = undefined
    this.#more = undefined
    if (first !== undefined) this.#run(first)
    if (more !== undefined) for (const waiter of more) this.#run(waiter)
  }

  #run (waiter: Waiter<T>): void {
    const fulfilled = this.#state === FULFILLED
    const target = waiter.target
    if (target === undefined) {
      if (fulfilled) waiter.onResult?.(this.#value as T)
      else waiter.onError?.(this.#value)
      return
    }
    if (!fulfilled && waiter.recover === undefined) {
      target.reject(this.#value)
      return
    }
    let output: Output<unknown>
    try {
      output = fulfilled ? (waiter.after as (result: T) => Output<unknown>)(this.#value as T) : (waiter.recover as (error: unknown) => Output<unknown>)(this.#value)
    } catch (error) {
      target.reject(error)
      return
    }
    target.resolve(output)
  }
}
