// Who waits on a call's next change in this process (GET /calls/:id?wait=, a DELETE waiting for the
// cancel to land): a set of wake-ups per call, woken by a change recorded here or heard from
// another replica.

export interface Wakeup {
  /** Resolves on the call's next change, or after `ms`. */
  after: (ms: number) => Promise<void>
  /** Stops waiting (always call it, woken or not). */
  cancel: () => void
}

export class CallWaiters {
  readonly #waiters = new Map<string, Set<() => void>>()

  /** Registered now, so that a change between this and `after()` is not missed. */
  on (callId: string): Wakeup {
    const woken = Promise.withResolvers<void>()
    const wake = (): void => { woken.resolve() }
    let waiters = this.#waiters.get(callId)
    if (waiters === undefined) {
      waiters = new Set()
      this.#waiters.set(callId, waiters)
    }
    waiters.add(wake)
    let timer: ReturnType<typeof setTimeout> | undefined
    return {
      after: async (ms) => {
        timer = setTimeout(wake, ms)
        await woken.promise
      },
      cancel: () => {
        clearTimeout(timer)
        const set = this.#waiters.get(callId)
        set?.delete(wake)
        if (set?.size === 0) this.#waiters.delete(callId)
      }
    }
  }

  wake (callId: string): void {
    for (const wake of this.#waiters.get(callId) ?? []) wake()
  }

  wakeAll (): void {
    for (const waiters of this.#waiters.values()) for (const wake of waiters) wake()
  }
}
