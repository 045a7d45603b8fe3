// A step result that arrives later, whose continuations run synchronously as soon as it does.
// With promises every wrapping step (truncation, hooks) and the dispatcher itself added a
// microtask hop to each call once the handler answered, ~0.25 µs each under load (bench/); with
// this, the handler's answer flows through them in one go. It is a thenable, so `await` works.
import type { StepResult } from './outcome.ts'

type Output = StepResult | Promise<StepResult> | Pending

interface Waiter {
  onResult: (result: StepResult) => void
  onError: (error: unknown) => void
}

const PENDING = 0
const FULFILLED = 1
const REJECTED = 2

export class Pending implements PromiseLike<StepResult> {
  #state = PENDING
  #value: unknown = undefined
  #waiters: Waiter[] | undefined = undefined

  /** Settles with `output`: a result at once, or whatever a promise or another Pending settles with. */
  resolve (output: Output): void {
    if (this.#state !== PENDING) return
    if (output instanceof Pending) output.subscribe((result) => this.#settle(FULFILLED, result), (error) => this.#settle(REJECTED, error))
    else if (output instanceof Promise) output.then((result) => this.#settle(FULFILLED, result), (error: unknown) => this.#settle(REJECTED, error))
    else this.#settle(FULFILLED, output)
  }

  reject (error: unknown): void {
    this.#settle(REJECTED, error)
  }

  /** Runs one of the callbacks when settled, synchronously (at once if it already is). */
  subscribe (onResult: (result: StepResult) => void, onError: (error: unknown) => void): void {
    if (this.#state === FULFILLED) onResult(this.#value as StepResult)
    else if (this.#state === REJECTED) onError(this.#value)
    else (this.#waiters ??= []).push({ onResult, onError })
  }

  /** A Pending of `after(result)`; a throw in `after` rejects it. */
  map (after: (result: StepResult) => Output): Pending {
    const mapped = new Pending()
    this.subscribe((result) => {
      let output: Output
      try {
        output = after(result)
      } catch (error) {
        mapped.reject(error)
        return
      }
      mapped.resolve(output)
    }, (error) => mapped.reject(error))
    return mapped
  }

  then<T1 = StepResult, T2 = never> (
    onFulfilled?: ((result: StepResult) => T1 | PromiseLike<T1>) | null,
    onRejected?: ((error: unknown) => T2 | PromiseLike<T2>) | null
  ): Promise<T1 | T2> {
    return new Promise<StepResult>((resolve, reject) => this.subscribe(resolve, reject)).then(onFulfilled, onRejected)
  }

  #settle (state: typeof FULFILLED | typeof REJECTED, value: unknown): void {
    if (this.#state !== PENDING) return
    this.#state = state
    this.#value = value
    const waiters = this.#waiters
    this.#waiters = undefined
    if (waiters === undefined) return
    for (const waiter of waiters) {
      if (state === FULFILLED) waiter.onResult(value as StepResult)
      else waiter.onError(value)
    }
  }
}
