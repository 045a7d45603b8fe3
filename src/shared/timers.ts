// Timers shared by the gateway: the longest delay a timer can take, and one way to bound a wait.

/** setTimeout fires at once (with a warning) for delays above 2^31 - 1 ms: longer waits are capped to this. */
export const MAX_TIMER_MS = 2_147_483_647

export interface WithTimeoutOptions {
  /** Let the process exit while only this timer is left (for waits that must never hold it open). */
  unref?: boolean
}

/**
 * The work's own outcome, or what `onTimeout` says (a value, or a throw that rejects) once `ms` have
 * passed. The timer is cleared as soon as the work settles. The late outcome of work that lost the
 * race is dropped, not reported as unhandled.
 */
export function withTimeout<T, F = T> (work: PromiseLike<T>, ms: number, onTimeout: () => F, options: WithTimeoutOptions = {}): Promise<T | F> {
  const { promise, resolve, reject } = Promise.withResolvers<T | F>()
  const timer = setTimeout(() => {
    try {
      resolve(onTimeout())
    } catch (err) {
      reject(err)
    }
  }, ms)
  // Mocked timers may lack unref.
  if (options.unref === true) timer.unref?.()
  Promise.resolve(work).then(
    (value) => { clearTimeout(timer); resolve(value) },
    (err: unknown) => { clearTimeout(timer); reject(err) }
  )
  return promise
}
