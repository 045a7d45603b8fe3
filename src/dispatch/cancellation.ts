// A one-shot cancellation for the HTTP hot path: an AbortSignal per request, listened to per call,
// took a fifth of the CPU of a dispatch under load (bench/README.md). The handler still gets a real
// AbortSignal (invoke-handler builds it only when the handler reads it).

export type CancelListener = (reason: unknown) => void

export class Cancellation {
  #cancelled = false
  #reason: unknown = undefined
  // One listener (a single call) needs no Set; a batch's calls share one cancellation and get one.
  #listener: CancelListener | undefined = undefined
  #more: Set<CancelListener> | undefined = undefined

  get cancelled (): boolean {
    return this.#cancelled
  }

  get reason (): unknown {
    return this.#reason
  }

  /** Cancels once: later calls change nothing, as with AbortController.abort. */
  cancel (reason: unknown): void {
    if (this.#cancelled) return
    this.#cancelled = true
    this.#reason = reason
    const first = this.#listener
    const more = this.#more
    this.#listener = undefined
    this.#more = undefined
    first?.(reason)
    if (more !== undefined) for (const listener of more) listener(reason)
  }

  /** Calls `listener` once on cancellation; the returned function unsubscribes. */
  subscribe (listener: CancelListener): () => void {
    if (this.#cancelled) return () => {}
    if (this.#listener === undefined && this.#more === undefined) {
      this.#listener = listener
      return () => { if (this.#listener === listener) this.#listener = undefined }
    }
    this.#more ??= new Set()
    this.#more.add(listener)
    return () => { this.#more?.delete(listener) }
  }
}
