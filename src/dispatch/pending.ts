// A value that arrives later, whose continuations run synchronously as soon as it does. With
// promises every wrapping step (truncation, hooks), the dispatcher and the route each added a
// microtask hop to a call once the handler answered, ~0.25 µs each under load (bench/); with this,
// the handler's answer flows through them in one go. It is a thenable, so `await` works.
import type { StepResult } from './outcome.ts'

type Output<T> = T | Promise<T> | Pending<T>

interface Waiter<T> {
  onResult: (result: T) => void
  onError: (error: unknown) => void
}

const PENDING = 0
const FULFILLED = 1
const REJECTED = 2

export class Pending<T = StepResult> implements PromiseLike<T> {
  #state = PENDING
  #value: unknown = undefined
  #waiters: Array<Waiter<T>> | undefined = undefined

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
    if (this.#state === FULFILLED) onResult(this.#value as T)
    else if (this.#state === REJECTED) onError(this.#value)
    else (this.#waiters ??= []).push({ onResult, onError })
  }

  /** A Pending of `after(result)` (or of `recover(error)` when given); a throw in either rejects it. */
  map<U> (after: (result: T) => Output<U>, recover?: (error: unknown) => Output<U>): Pending<U> {
    const mapped = new Pending<U>()
    const settleWith = (make: () => Output<U>): void => {
      let output: Output<U>
      try {
        output = make()
      } catch (error) {
        mapped.reject(error)
        return
      }
      mapped.resolve(output)
    }
    this.subscribe(
      (result) => settleWith(() => after(result)),
      (error) => { if (recover === undefined) mapped.reject(error); else settleWith(() => recover(error)) })
    return mapped
  }

  then<T1 = T, T2 = never> (
    onFulfilled?: ((result: T) => T1 | PromiseLike<T1>) | null,
    onRejected?: ((error: unknown) => T2 | PromiseLike<T2>) | null
  ): Promise<T1 | T2> {
    return new Promise<T>((resolve, reject) => this.subscribe(resolve, reject)).then(onFulfilled, onRejected)
  }

  #settle (state: typeof FULFILLED | typeof REJECTED, value: unknown): void {
    if (this.#state !== PENDING) return
    this.#state = state
    this.#value = value
    const waiters = this.#waiters
    this.#waiters = undefined
    if (waiters === undefined) return
    for (const waiter of waiters) {
      if (state === FULFILLED) waiter.onResult(value as T)
      else waiter.onError(value)
    }
  }
}
